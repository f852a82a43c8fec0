# The old "60-minute blitz": torch.autograd.Variable is a tensor now
import torch
from torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
out.backward()
print(x.grad)
print(isinstance(x, torch.Tensor), type(x))
