# 中文教程：torch.no_grad() 和 set_grad_enabled 停止记录计算图
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn)
with torch.set_grad_enabled(False):
    z = x * 3
print(z.requires_grad)
torch.set_grad_enabled(True)
w = x * 4
print(w.requires_grad, w.grad_fn.name())


@torch.no_grad()
def evaluate(t):
    return t * t


print(evaluate(x).requires_grad, torch.is_grad_enabled())
