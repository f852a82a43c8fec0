# Catching autograd errors and going on
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x * 2
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print(e)
try:
    torch.tensor([1, 2]).requires_grad_()
except RuntimeError as e:
    print(e)
print(x.grad)
