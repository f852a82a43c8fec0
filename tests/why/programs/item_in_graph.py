# why: w cut item
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, requires_grad=True)
score = (x @ w).sum().item()
loss = torch.tensor(score, requires_grad=True) ** 2
loss.backward()
