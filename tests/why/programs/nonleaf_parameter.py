# why: w not_yet retain_grad
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, requires_grad=True) * 0.01
loss = (x @ w).pow(2).mean()
loss.backward()
