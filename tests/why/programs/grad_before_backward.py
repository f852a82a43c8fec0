# why: w not_yet backward
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, requires_grad=True)
loss = (x @ w).pow(2).mean()
print(w.grad)
