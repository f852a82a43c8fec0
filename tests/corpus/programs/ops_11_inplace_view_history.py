# In-place changes through slices, as the autograd-mechanics lessons show them: the names torch gives
# the history (CopySlices, AsStridedBackward0), the version error, and a view taken before its base
# changed, whose gradient follows the change.
import torch

a = torch.tensor([[1.0, -2.0], [0.5, 3.0], [-1.5, 2.5]], requires_grad=True)
b = torch.tensor([0.25, -0.75], requires_grad=True)

x = a.clone()
x[0] = b
print(x.grad_fn, x.grad_fn.name(), [type(f).__name__ for f, _ in x.grad_fn.next_functions])

v = (a * 2)[1:3]
v.mul_(10)
print(v.grad_fn, [type(f).__name__ for f, _ in v.grad_fn.next_functions], v._base.grad_fn)

x = a * 1
row = x[1]
x.mul_(2)
print(row.grad_fn, row)
(row * 3).sum().backward()
print(a.grad)

a.grad = None
x = a * 1
top = x[0:2]
cell = top[0]
cell.mul_(b)
print(type(top.grad_fn).__name__, type(cell.grad_fn).__name__)
(top * 2).sum().backward()
print(a.grad, b.grad)

v = (a * 2)[1:3]
w = v * v
v.mul_(10)
try:
    w.sum().backward()
except RuntimeError as e:
    print(e)
