# why: w cut data
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, 2, requires_grad=True)
b = torch.zeros(2, requires_grad=True)
h = x @ w.data + b
loss = h.pow(2).mean()
loss.backward()
