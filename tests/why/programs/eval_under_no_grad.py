# why: w cut no_grad
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
with torch.no_grad():
    h = x @ w
loss = (h + b).pow(2).mean()
loss.backward()
