# Asking for a GPU where there is none
import torch

x = torch.ones(2)
print(torch.cuda.is_available())
y = x.cuda()
