# why: w1 zeroed relu
import torch

torch.manual_seed(0)
x = torch.randn(8, 4)
w1 = torch.randn(4, 6, requires_grad=True)
b1 = torch.full((6,), -10.0, requires_grad=True)
w2 = torch.randn(6, 1, requires_grad=True)
h = torch.relu(x @ w1 + b1)
y = h @ w2
loss = y.pow(2).mean()
loss.backward()
