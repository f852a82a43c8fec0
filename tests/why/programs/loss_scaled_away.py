# why: w vanish mul
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
y = torch.randn(8)
w = torch.randn(3, requires_grad=True)
loss = 1e-9 * ((x @ w - y) ** 2).mean()
loss.backward()
