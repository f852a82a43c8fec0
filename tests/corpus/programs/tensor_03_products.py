# dot, mv, bmm and floor division
import torch

u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([4.0, -5.0, 6.0])
d = torch.dot(u, v)
print(d, d.grad_fn.name())
A = torch.arange(12.0).reshape(2, 2, 3)
B = torch.arange(6.0).reshape(2, 3, 1)
C = torch.bmm(A, B)
print(C.shape)
print(C.squeeze(-1))
print(torch.arange(7) // 2, torch.tensor([7.5, -7.5]) // 2)
d.backward()
print(u.grad)
