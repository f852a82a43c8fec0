# A hook on a leaf changes what is written into .grad
import torch

w = torch.tensor([0.5, 1.5], requires_grad=True)


def clip(grad):
    return grad.clamp(-1.0, 1.0)


w.register_hook(clip)
loss = (w * torch.tensor([4.0, -0.2])).sum()
loss.backward()
print(w.grad)
