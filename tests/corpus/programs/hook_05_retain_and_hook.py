# A hook runs before retain_grad keeps the gradient
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x
y.retain_grad()
y.register_hook(lambda g: g + 100)
y.backward()
print(y.grad, x.grad)
