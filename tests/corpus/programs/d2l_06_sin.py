# d2l 2.5 exercise: the derivative of sin is cos, checked with autograd
import math

import torch

x = torch.linspace(-math.pi, math.pi, 9, requires_grad=True)
y = torch.sin(x)
y.sum().backward()
print(torch.allclose(x.grad, torch.cos(x)))
print(x.grad.shape, x.grad.dtype)
print(round(x.grad[4].item(), 4))
