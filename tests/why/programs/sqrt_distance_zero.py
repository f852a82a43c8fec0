# why: a nonfinite sqrt
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0])
dist = torch.sqrt(((a - b) ** 2).sum())
dist.backward()
