# 中文教程：创建需要梯度的张量，查看叶子节点与 grad_fn
import torch

x = torch.ones(2, 2, requires_grad=True)
print("x =", x)
y = x + 2
print("y =", y)
print("y 的 grad_fn:", y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
print("x 是叶子节点吗?", x.is_leaf, " y 是叶子节点吗?", y.is_leaf)
out.backward()
print("x 的梯度:", x.grad)
