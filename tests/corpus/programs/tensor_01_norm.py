# norm as a function and a method, with p and dim; its gradient is x / ‖x‖
import torch

x = torch.tensor([[3.0, -4.0], [1.0, 2.0]], requires_grad=True)
print(x.norm())
print(torch.norm(x, p=1), x.norm(p=float("inf")))
print(x.norm(dim=1), torch.norm(x, dim=0, keepdim=True))
print(x.norm(p=1, dim=1))
n = x.norm()
n.backward()
print(x.grad)
print(torch.allclose(x.grad, x / n))
print(n.grad_fn.name())
