# micrograd's test_more_ops: every operation micrograd knows, against torch
import torch

a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
c = a + b
d = a * b + b**3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g = g + 10.0 / f
g.backward()
apt, bpt, gpt = a, b, g
tol = 1e-6
print(f"{gpt.data.item():.6f}")
print(f"{apt.grad.item():.6f}", f"{bpt.grad.item():.6f}")
print(abs(gpt.data.item() - 24.70408163265306) < tol)
