# Views, strides and contiguity: reshape copies when view cannot
import torch

x = torch.arange(6.0, requires_grad=True)
m = x.view(2, 3)
t = m.t()
print(m.is_contiguous(), t.is_contiguous())
r = t.reshape(6)
print(r.grad_fn.name(), r.grad_fn.next_functions[0][0].name())
c = t.contiguous()
print(c.is_contiguous(), c.grad_fn.name())
print(c.view(-1))
r.sum().backward()
print(x.grad)
