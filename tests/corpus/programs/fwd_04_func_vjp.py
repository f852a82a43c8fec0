# torch.func.vjp: the output and a function for vector-Jacobian products
import torch
from torch.func import vjp

x = torch.tensor([1.0, 2.0, 3.0])
out, vjp_fn = vjp(torch.sin, x)
(g,) = vjp_fn(torch.ones_like(out))
print(out)
print(g)
print(torch.allclose(g, torch.cos(x)))
