# prod and cumsum, with zeros in the input
import torch

x = torch.tensor([2.0, 3.0, 0.5, 4.0], requires_grad=True)
p = x.prod()
print(p, p.grad_fn)
p.backward()
print(x.grad)
z = torch.tensor([2.0, 0.0, 5.0], requires_grad=True)
z.prod().backward()
print(z.grad)
m = torch.tensor([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]], requires_grad=True)
r = m.prod(dim=1, keepdim=True)
print(r, r.shape)
r.sum().backward()
print(m.grad)
c = torch.cumsum(x, dim=0)
print(c)
x.grad = None
(c * torch.tensor([1.0, -1.0, 2.0, 0.5])).sum().backward()
print(x.grad)
print(torch.arange(1, 6).prod(), torch.arange(5).cumsum(0))
