# How tensors print: dtypes, grad_fn, requires_grad, sizes
import torch

print(torch.tensor([1, 2, 3]), torch.tensor([1.5, 2.25]), torch.tensor([True, False]))
print(torch.zeros(2, 3, dtype=torch.float64))
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
print(x, x * 2, (x * 2).sum())
print(torch.tensor(3.14159), torch.tensor([1e-5, 1e5]), torch.tensor([0.1, 100.0]))
print(x.shape, x.size(1), x.dim(), x.numel(), x.dtype, x.T.shape)
print(repr(torch.float32), torch.int64, torch.tensor([1, 2], dtype=torch.int32))
