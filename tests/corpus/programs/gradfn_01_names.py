# Reading the graph: grad_fn, name() and next_functions
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
y = (x * w).sum()
print(y.grad_fn)
print(y.grad_fn.name())
print(y.grad_fn.next_functions)
mul = y.grad_fn.next_functions[0][0]
print(mul.name(), [f.name() for f, _ in mul.next_functions])
print(x.grad_fn, x.is_leaf)
