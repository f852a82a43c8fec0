# why: w2 zeroed relu
import torch

torch.manual_seed(1)
x = torch.randn(6, 3)
w1 = torch.randn(3, 4, requires_grad=True)
w2 = torch.randn(4, 5, requires_grad=True)
b2 = torch.full((5,), -50.0, requires_grad=True)
w3 = torch.randn(5, 1, requires_grad=True)
h1 = torch.relu(x @ w1)
h2 = torch.relu(h1 @ w2 + b2)
out = h2 @ w3
loss = (out - 1).pow(2).mean()
loss.backward()
