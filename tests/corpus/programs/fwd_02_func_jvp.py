# torch.func.jvp: the output and its directional derivative in one forward pass
import torch
from torch.func import jvp

x = torch.tensor([0.5, 1.0, 2.0])
v = torch.tensor([1.0, 1.0, 1.0])


def f(x):
    return torch.sin(x) * x


out, jvp_out = jvp(f, (x,), (v,))
print(out)
print(jvp_out)
print(torch.allclose(jvp_out, torch.cos(x) * x + torch.sin(x)))
