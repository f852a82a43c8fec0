# why: w zeroed zero_grad
import torch

torch.manual_seed(0)
x = torch.randn(8, 2)
y = torch.randn(8, 1)
w = torch.randn(2, 1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for _step in range(3):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    opt.zero_grad()
    opt.step()
