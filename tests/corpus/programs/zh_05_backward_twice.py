# 中文教程：计算图默认在反向传播后释放，第二次 backward 会报错
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 2 * torch.exp(x)
y.backward(retain_graph=True)
print("第一次:", x.grad)
y.backward()
print("第二次(梯度累加):", x.grad)
z = x * torch.sin(x)
z.backward()
z.backward()
