# d2l-style unpacking of a parameter vector: a, b, c = params makes one UnbindBackward0 in torch,
# with each piece's output number; the unused piece gets a zero gradient
import torch

params = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
a, b, c = params
print(a.grad_fn, b.grad_fn is a.grad_fn, [t.output_nr for t in (a, b, c)])
x = torch.linspace(-1, 1, 5)
y = a * x ** 2 + b * x
loss = ((y - torch.ones(5)) ** 2).mean()
print(loss.grad_fn.next_functions[0][0].next_functions)
loss.backward()
print(loss.item(), params.grad)
for name, g in zip("abc", params.grad):
    print(name, g.item())
