# torch.autograd.functional.jacobian of an elementwise square and of a matrix map
import torch
from torch.autograd.functional import jacobian


def f(x):
    return x ** 2


x = torch.tensor([1.0, 2.0, 3.0])
print(jacobian(f, x))
A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [0.0, -1.0]])
print(jacobian(lambda v: A @ v, torch.tensor([0.5, 0.5])))
