# why: w0 vanish sigmoid
import torch

torch.manual_seed(0)
x = torch.randn(4, 8)
w0 = (torch.randn(8, 8) * 6).requires_grad_()
h = torch.sigmoid(x @ w0)
for _i in range(12):
    h = torch.sigmoid(h @ (torch.randn(8, 8) * 6))
loss = h.sum()
loss.backward()
