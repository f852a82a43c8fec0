# torch.func.grad: a function that returns the gradient, and the gradient of the gradient
import torch
from torch.func import grad

x = torch.tensor(1.0)
print(grad(torch.sin)(x))
print(grad(grad(torch.sin))(x))
print(grad(lambda t: (t ** 2).sum())(torch.tensor([1.0, -2.0])))
