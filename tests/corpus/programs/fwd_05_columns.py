# Forward mode builds a Jacobian one column per pass (one tangent per input direction)
import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0])
columns = []
for i in range(2):
    e = torch.zeros(2)
    e[i] = 1.0
    with fwAD.dual_level():
        d = fwAD.make_dual(x, e)
        y = torch.stack([d[0] * d[1], d[0] + d[1].exp()])
        columns.append(fwAD.unpack_dual(y).tangent)
J = torch.stack(columns, dim=1)
print(J)
print(torch.allclose(J, torch.autograd.functional.jacobian(lambda v: torch.stack([v[0] * v[1], v[0] + v[1].exp()]), x)))
