# d2l 2.5: detaching a computation
import torch

x = torch.arange(4.0, requires_grad=True)
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)
print(u.requires_grad, y.requires_grad, u.grad_fn)
