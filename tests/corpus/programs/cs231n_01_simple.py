# CS231n backprop notes: f(x, y, z) = (x + y) z
import torch

x = torch.tensor(-2.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = torch.tensor(-4.0, requires_grad=True)
q = x + y
f = q * z
f.backward()
dfdz = q
dfdq = z
print(f.item(), x.grad.item(), y.grad.item(), z.grad.item())
print(dfdz.item() == z.grad.item(), (dfdq * 1.0).item() == x.grad.item())
