# why: w cut round
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, 2, requires_grad=True)
q = torch.round(x @ w)
loss = q.pow(2).sum()
loss.backward()
