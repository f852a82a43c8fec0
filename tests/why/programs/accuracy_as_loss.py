# why: w cut compare
import torch

torch.manual_seed(0)
x = torch.randn(6, 2)
w = torch.randn(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
correct = ((x @ w) > 0).float()
loss = -(correct.mean() + b).sum()
loss.backward()
