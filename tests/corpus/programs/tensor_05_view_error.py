# view refuses a transposed tensor
import torch

m = torch.arange(6.0).view(2, 3)
t = m.t()
print(t.shape, t.is_contiguous())
flat = t.view(-1)
