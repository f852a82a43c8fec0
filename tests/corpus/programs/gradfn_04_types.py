# type() and isinstance() on tensors, parameters, modules and graph nodes
import torch
import torch.nn as nn

x = torch.ones(2, requires_grad=True)
p = nn.Parameter(torch.zeros(3))
m = nn.Linear(2, 1)
print(type(x))
print(type(p), isinstance(p, torch.Tensor), type(p) is torch.Tensor)
print(isinstance(m, nn.Module), isinstance(m, nn.Linear), type(m).__name__)
print(type(x) is torch.Tensor, isinstance(x, nn.Parameter), x.is_leaf)
y = (x * 2).sum()
print(type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__)
print(type(m.weight).__name__, type(x.shape).__name__, type(x.dtype))
