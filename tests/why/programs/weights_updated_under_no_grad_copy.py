# why: w cut no_grad
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
with torch.no_grad():
    w_scaled = w * 2
loss = ((x @ w_scaled) + b).pow(2).mean()
loss.backward()
