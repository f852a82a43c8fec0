# A per-parameter optimizer step in a post-accumulate-grad hook (PyTorch's memory-saving recipe)
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
seen = []


def step(p):
    seen.append(tuple(p.grad.shape))
    with torch.no_grad():
        p.sub_(0.1 * p.grad)
    p.grad = None


for p in (w, b):
    p.register_post_accumulate_grad_hook(step)
x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
for _ in range(3):
    loss = ((x @ w + b) ** 2).mean()
    loss.backward()
    print(f"{loss.item():.6f}", w.grad, b.grad)
print(seen)
try:
    (w * 2).register_post_accumulate_grad_hook(step)
except RuntimeError as e:
    print(e)
w.register_post_accumulate_grad_hook(lambda p: p.grad)
(w * 1).sum().backward()
