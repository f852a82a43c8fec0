# why: w zeroed clamp
import torch

torch.manual_seed(0)
x = torch.rand(4, 3) + 1.0
w = (torch.rand(3, 1) + 2.0).requires_grad_()
p = torch.clamp(x @ w, 0.0, 1.0)
loss = (p - 0.5).pow(2).mean()
loss.backward()
