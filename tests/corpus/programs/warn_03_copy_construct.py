# torch.tensor(tensor) copies and warns: use clone().detach()
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(a)
print(b, b.requires_grad)
c = a.clone().detach()
print(c, c.requires_grad)
