# Seeded sampling as the courses do it: the default generator object, sampling words from a
# softmax with torch.multinomial (a char-RNN's generation loop), exponential waiting times, and
# the initializers of transformer and RNN tutorials (trunc_normal_, orthogonal_).
import torch
from torch import nn

g = torch.default_generator
g.manual_seed(42)
print(g.initial_seed(), torch.initial_seed())
state = g.get_state()
first = torch.rand(3)
g.set_state(state)
print(torch.equal(first, torch.rand(3)))

torch.manual_seed(0)
logits = torch.tensor([[2.0, 1.0, 0.1, -1.0], [0.0, 0.0, 3.0, 0.5]])
probs = torch.softmax(logits, dim=-1)
print(torch.multinomial(probs, num_samples=1))
print(torch.multinomial(probs, num_samples=3))
print(torch.multinomial(probs[0], 8, replacement=True))
print(probs.multinomial(2, replacement=True))

chars = "abcd"
idx = 0
text = ""
for _ in range(12):
    idx = torch.multinomial(probs[idx % 2], 1).item()
    text += chars[idx]
print(text)

waits = torch.empty(6).exponential_(2.0)
print(waits)
print(torch.empty(3, dtype=torch.float64).exponential_())

w = nn.init.trunc_normal_(torch.empty(4, 5), std=0.02)
print(w)
print(nn.init.trunc_normal_(torch.empty(8), mean=0.0, std=1.0, a=1.5, b=2.5))
q = nn.init.orthogonal_(torch.empty(3, 6))
print(torch.allclose(q @ q.T, torch.eye(3), atol=1e-6), q.shape)
print(torch.rand(2))

try:
    torch.multinomial(probs, 5)
except RuntimeError as e:
    print("error:", e)
try:
    torch.empty(2).exponential_(0.0)
except RuntimeError as e:
    print("error:", e)
