# Forward-mode AD with dual numbers (torch.autograd.forward_ad)
import torch
import torch.autograd.forward_ad as fwAD

primal = torch.tensor([1.0, 2.0, 3.0])
tangent = torch.tensor([1.0, 0.0, 0.0])


def fn(x, y):
    return x ** 2 + y.sin()


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input, primal)
    jvp = fwAD.unpack_dual(dual_output).tangent
    p = fwAD.unpack_dual(dual_output).primal
print(jvp)
print(p)
