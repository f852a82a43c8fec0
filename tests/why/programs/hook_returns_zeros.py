# why: w zeroed hook
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
w = torch.randn(3, requires_grad=True)


def clip(g):
    return g * 0


w.register_hook(clip)
loss = (x @ w).pow(2).mean()
loss.backward()
