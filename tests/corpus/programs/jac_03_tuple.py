# jacobian of a function of two inputs gives one matrix per input
import torch


def g(a, b):
    return a * b + b.exp()


a = torch.tensor([1.0, 2.0])
b = torch.tensor([0.0, 1.0])
ja, jb = torch.autograd.functional.jacobian(g, (a, b))
print(ja)
print(jb)
