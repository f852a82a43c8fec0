# why: w vanish tanh
import torch

x = torch.full((4, 3), 0.5)
w = torch.full((3, 2), 4.667, requires_grad=True)
h = torch.tanh(x @ w)
loss = h.sum()
loss.backward()
