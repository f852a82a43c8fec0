# why: w cut argmax
import torch

torch.manual_seed(0)
x = torch.randn(5, 3)
y = torch.tensor([0.0, 2.0, 1.0, 1.0, 0.0])
w = torch.randn(3, 3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
pred = (x @ w).argmax(dim=1).float() + b
loss = ((pred - y) ** 2).mean()
loss.backward()
