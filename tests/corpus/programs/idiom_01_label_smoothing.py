# Label smoothing, as in the classification chapters: the same logits with hard targets and with
# nn.CrossEntropyLoss(label_smoothing=0.1); the gradient pulls the wrong classes up a little.
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(4, 3, requires_grad=True)
y = torch.tensor([0, 2, 1, 2])

plain = F.cross_entropy(logits, y)
smooth = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, y)
print("plain:", plain.item(), plain.grad_fn)
print("smooth:", smooth.item(), smooth.grad_fn.name())
print([type(f).__name__ for f, _ in smooth.grad_fn.next_functions])
smooth.backward()
print(logits.grad)

logits.grad = None
per_sample = F.cross_entropy(logits, y, label_smoothing=0.2, reduction="none")
print(per_sample)
total = F.cross_entropy(logits, y, label_smoothing=0.2, reduction="sum", ignore_index=2)
total.backward()
print(total.item(), logits.grad)

# masked_fill: what the smoothed loss uses for ignored targets, and attention masks use
scores = logits.detach() * 2
print(scores.masked_fill(y[:, None] == torch.arange(3), float("-inf")).softmax(1))

try:
    F.cross_entropy(logits, y, label_smoothing=1.5)
except RuntimeError as e:
    print("error:", e)
