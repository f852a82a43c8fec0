# why: w cut integer
import torch

torch.manual_seed(0)
x = torch.randn(6, 2)
y = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
w = torch.randn(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
pred = (x @ w).long().float() + b
loss = ((pred - y) ** 2).mean()
loss.backward()
