# why: b2 cut unused
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w1 = torch.randn(3, 4, requires_grad=True)
b1 = torch.zeros(4, requires_grad=True)
w2 = torch.randn(4, 1, requires_grad=True)
b2 = torch.zeros(1, requires_grad=True)
out = torch.tanh(x @ w1 + b1) @ w2
loss = out.pow(2).mean()
loss.backward()
