# torch.autograd.functional.hessian of f(x) = Σ x³ + x₀x₁
import torch
from torch.autograd.functional import hessian


def f(x):
    return (x ** 3).sum() + x[0] * x[1]


x = torch.tensor([1.0, 2.0])
H = hessian(f, x)
print(H)
print(H.shape)
