# AccumulateGrad: the node that writes into a leaf's .grad
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
acc = y.grad_fn.next_functions[0][0]
print(type(acc).__name__)
print(acc.variable is x)
print(acc.next_functions)
print(acc.name())
print(type(y.grad_fn).__name__, y.grad_fn.name())
