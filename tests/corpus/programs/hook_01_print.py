# Tensor.register_hook: see the gradient as it passes
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
y.register_hook(lambda grad: print("gradient reaching y:", grad))
x.register_hook(lambda grad: print("gradient reaching x:", grad))
z = (y ** 2).sum()
z.backward()
print(x.grad)
