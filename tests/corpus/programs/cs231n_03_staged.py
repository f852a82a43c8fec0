# CS231n backprop notes: staged computation f = (x + σ(y)) / (σ(x) + (x + y)²)
import math

import torch

x, y = 3.0, -4.0
sigy = 1.0 / (1 + math.exp(-y))
num = x + sigy
sigx = 1.0 / (1 + math.exp(-x))
xpy = x + y
xpysqr = xpy ** 2
den = sigx + xpysqr
invden = 1.0 / den
f = num * invden
dnum = invden
dinvden = num
dden = (-1.0 / (den ** 2)) * dinvden
dsigx = (1) * dden
dxpysqr = (1) * dden
dxpy = (2 * xpy) * dxpysqr
dx = (1) * dxpy
dy = (1) * dxpy
dx += ((1 - sigx) * sigx) * dsigx
dx += (1) * dnum
dsigy = (1) * dnum
dy += ((1 - sigy) * sigy) * dsigy

xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
ft = (xt + torch.sigmoid(yt)) / (torch.sigmoid(xt) + (xt + yt) ** 2)
ft.backward()
print(f"{f:.6f} {ft.item():.6f}")
print(f"{dx:.6f} {xt.grad.item():.6f}")
print(f"{dy:.6f} {yt.grad.item():.6f}")
