# max and min along a dim give (values, indices)
import torch

x = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.5, 3.0]], requires_grad=True)
result = torch.max(x, dim=1)
print(result)
print(result.values, result.indices)
values, indices = x.min(dim=0)
print(values, indices)
result.values.sum().backward()
print(x.grad)
print(type(result).__name__, result.values.grad_fn)
