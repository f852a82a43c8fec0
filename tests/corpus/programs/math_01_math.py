# The math module next to torch
import math

import torch

print(math.pi, math.e, math.sqrt(2), math.exp(1) == math.e)
print(math.isclose(torch.tensor(math.pi).sin().item(), 0.0, abs_tol=1e-6))
x = torch.tensor(0.5, requires_grad=True)
y = torch.log(x) * math.log(10)
y.backward()
print(round(x.grad.item(), 5), round(math.log(10) / 0.5, 5))
print(math.floor(2.7), math.ceil(2.1), math.factorial(5), math.inf > 1e308)
