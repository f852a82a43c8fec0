# why: W explode mm
import torch

torch.manual_seed(0)
W = (torch.eye(4) * 2.5).requires_grad_()
h = torch.ones(1, 4)
for _t in range(14):
    h = h @ W
loss = h.sum()
loss.backward()
