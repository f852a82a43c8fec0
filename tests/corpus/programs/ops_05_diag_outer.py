# diag and outer: building matrices from vectors and back
import torch

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
D = torch.diag(v)
print(D)
print(torch.diag(v, 1).shape)
w = torch.tensor([0.5, -1.0], requires_grad=True)
P = torch.outer(v, w)
print(P)
print(P.grad_fn, P.grad_fn.next_functions[0][0])
M = torch.arange(9.0).view(3, 3).requires_grad_()
d = torch.diag(M)
print(d, torch.diag(M, -1))
(D.sum() + P.sum() + d.sum() + v.outer(v).sum()).backward()
print(v.grad, w.grad)
print(M.grad)
