# Running products: cumprod and its gradient, a zero included (survival probabilities)
import torch

p = torch.tensor([0.9, 0.8, 0.5, 0.7], requires_grad=True)
alive = torch.cumprod(p, dim=0)
print(alive, alive.grad_fn)
alive.sum().backward()
print(p.grad)
q = torch.tensor([[2.0, 0.0, 3.0], [1.0, 2.0, 0.0]], requires_grad=True)
r = q.cumprod(1)
print(r)
(r * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(q.grad)
print(torch.arange(1, 6).cumprod(0))
