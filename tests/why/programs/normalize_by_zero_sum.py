# why: w nonfinite div
import torch

w = torch.zeros(4, requires_grad=True)
share = w / w.sum()
loss = (share * torch.arange(4.0)).sum()
loss.backward()
