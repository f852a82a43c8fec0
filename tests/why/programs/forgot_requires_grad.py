# why: w cut requires_grad
import torch

torch.manual_seed(0)
x = torch.randn(5, 3)
y = torch.randn(5, 1)
w = torch.randn(3, 1)
b = torch.zeros(1, requires_grad=True)
loss = ((x @ w + b - y) ** 2).mean()
loss.backward()
