# d2l / the autograd mechanics notes: the version counter behind "modified by an inplace operation"
import torch

x = torch.ones(3, requires_grad=True)
y = x * 2
print(y._version, y._base)
y.add_(1)
print(y._version)
v = y[1:]
print(v._base is y, v._version)
v.mul_(3)
print(y._version, v._version, y)
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
print([m.__class__.__name__ for m in net], net.__class__.__name__)
print(type(x).__name__, x.__class__ is type(x))
