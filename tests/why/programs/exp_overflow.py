# why: w nonfinite exp
import torch

torch.manual_seed(0)
x = torch.randn(4, 3) * 400
w = torch.randn(3, requires_grad=True)
e = torch.exp(x @ w)
loss = e.mean()
loss.backward()
