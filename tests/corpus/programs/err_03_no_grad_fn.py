# backward of a tensor that does not require grad
import torch

x = torch.tensor([1.0, 2.0])
y = (x * 2).sum()
print(y.requires_grad)
y.backward()
