# mean of an integer tensor: PyTorch names the dtype Long
import torch

x = torch.tensor([1, 2, 3])
print(x.dtype, x.sum(), x.float().mean())
x.mean()
