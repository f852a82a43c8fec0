# Multiplying matrices of the wrong shapes
import torch

a = torch.ones(2, 3)
b = torch.ones(2, 3)
print(a @ b.T)
c = torch.mm(a, b)
