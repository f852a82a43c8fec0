# A hook that returns a tensor replaces the gradient; handle.remove() takes it away
import torch

x = torch.tensor([1.0, -2.0], requires_grad=True)
y = x * 3
handle = y.register_hook(lambda g: g * 10)
y.sum().backward()
print(x.grad)
handle.remove()
x.grad = None
y = x * 3
y.sum().backward()
print(x.grad)
