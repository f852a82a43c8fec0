# 中文教程：非叶子节点的梯度默认不保存，用 retain_grad() 保留
import torch

x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * 2
y.retain_grad()
z = (y ** 2).sum()
z.backward()
print("y.grad:", y.grad)
print("x.grad:", x.grad)
print(y.retains_grad, x.retains_grad)
