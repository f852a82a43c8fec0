# 中文教程：梯度会累加，反向传播之前需要清零
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for i in range(3):
    y = (x ** 2).sum()
    y.backward()
    print(f"第 {i + 1} 次反向传播后 x.grad = {x.grad}")
x.grad.data.zero_()
print("清零之后:", x.grad)
