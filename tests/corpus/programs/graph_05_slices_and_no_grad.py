# The autograd-mechanics lesson on in-place changes: CopySlices lists the base's history and the
# changed op's other inputs (None for a number); a view taken before its base changed under no_grad
# reads its history again (AsStridedBackward0) the next time it is used
import torch

x = torch.randn(3, 2, requires_grad=True)
y = x * 1
z = y.clone()
z[:, 0].mul_(2)
print(z.grad_fn.name(), [None if f is None else type(f).__name__ for f, _ in z.grad_fn.next_functions])
z[:, 1].add_(x[:, 0])
print([type(f).__name__ for f, _ in z.grad_fn.next_functions])
z.sum().backward()
print(x.grad)

h = torch.arange(6.0, requires_grad=True) * 1
v = h[1:3]
print(v.grad_fn)
with torch.no_grad():
    h.mul_(2)
print(v.grad_fn, v.grad_fn.next_functions, v._version)
(v * v).sum().backward()
