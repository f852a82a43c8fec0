# CS231n backprop notes: a 2-D neuron with a sigmoid, by hand and by autograd
import math

import torch

w = [2, -3, -3]
x = [-1, -2]
dot = w[0] * x[0] + w[1] * x[1] + w[2]
f = 1.0 / (1 + math.exp(-dot))
ddot = (1 - f) * f
dx = [w[0] * ddot, w[1] * ddot]
dw = [x[0] * ddot, x[1] * ddot, 1.0 * ddot]
print(round(f, 4), [round(v, 4) for v in dx], [round(v, 4) for v in dw])

wt = torch.tensor([2.0, -3.0, -3.0], requires_grad=True)
xt = torch.tensor([-1.0, -2.0], requires_grad=True)
ft = torch.sigmoid(wt[0] * xt[0] + wt[1] * xt[1] + wt[2])
ft.backward()
print(ft)
print(xt.grad, wt.grad)
print(torch.allclose(wt.grad, torch.tensor(dw)))
