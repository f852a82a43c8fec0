# In-place activations, broadcast_to, narrow and strides
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x * 2
h.relu_()
print(h, h.grad_fn)
g = x * 1
g.sigmoid_()
print(g)
k = torch.tanh_(x * 0.5)
print(k)
r = F.relu(x - 1, inplace=True)
print(r)
act = nn.ReLU(inplace=True)
print(act, act(x + 0.0))
(h.sum() + g.sum() + k.sum()).backward()
print(x.grad)
b = torch.broadcast_to(x, (2, 3))
print(b, b.grad_fn)
M = torch.arange(12.0).view(3, 4)
print(M.narrow(1, 1, 2), M.narrow(0, -1, 1))
print(M.stride(), M.t().stride(), M.stride(1), M.is_inference())
try:
    x.relu_()
except RuntimeError as e:
    print("RuntimeError:", e)
