# The legacy torch.Tensor constructor makes float tensors
import torch

a = torch.Tensor([[1, 2], [3, 4]])
print(a, a.dtype)
b = torch.Tensor(2, 3)
print(b.shape, b.dtype)
c = torch.Tensor([5])
print(c.type(), c.requires_grad)
d = torch.Tensor()
print(d, d.shape)
