# 中文教程：不能对需要梯度的叶子张量做原地操作
import torch

w = torch.randn(3, requires_grad=True)
print(w.is_leaf, w.requires_grad)
with torch.no_grad():
    w.add_(1.0)
print("在 no_grad 中原地修改可以")
w.add_(1.0)
