# micrograd's test_sanity_check, with torch on the other side
import torch

x = torch.Tensor([-4.0]).double()
x.requires_grad = True
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
xpt, ypt = x, y
print(ypt.data.item())
print(xpt.grad.item())
print(type(xpt), xpt.dtype, xpt.is_leaf, ypt.is_leaf)
