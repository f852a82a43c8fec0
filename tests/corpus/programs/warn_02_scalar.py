# Converting a tensor that requires grad to a Python number warns
import torch

x = torch.tensor(1.5, requires_grad=True)
print(float(x))
print(x.item())
print(float(x.detach()))
