# why: w zeroed where
import torch

torch.manual_seed(0)
x = torch.randn(6, 2)
w = torch.randn(2, requires_grad=True)
valid = torch.tensor([True, True, True, True, True, True])
s = torch.where(~valid, x @ w, torch.zeros(6))
loss = (s - 1).pow(2).mean()
loss.backward()
