# why: w1 cut detach
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w1 = torch.randn(3, 5, requires_grad=True)
w2 = torch.randn(5, 1, requires_grad=True)
h = torch.tanh(x @ w1).detach()
out = h @ w2
loss = out.pow(2).mean()
loss.backward()
