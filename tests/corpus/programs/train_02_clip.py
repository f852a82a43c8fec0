# Gradient clipping by the global norm
import torch
from torch import nn

w = nn.Parameter(torch.tensor([3.0, 4.0]))
b = nn.Parameter(torch.tensor([12.0]))
loss = (w * w).sum() / 2 + (b * b).sum() / 2
loss.backward()
print(w.grad, b.grad)
total = nn.utils.clip_grad_norm_([w, b], max_norm=1.0)
print(total)
print(w.grad, b.grad)
print(round(torch.cat([w.grad, b.grad]).norm().item(), 4))
