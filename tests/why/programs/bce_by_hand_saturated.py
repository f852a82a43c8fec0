# why: w nonfinite log
import torch

torch.manual_seed(0)
x = torch.randn(4, 2) * 50
y = torch.tensor([1.0, 0.0, 1.0, 0.0])
w = torch.tensor([3.0, -3.0], requires_grad=True)
p = torch.sigmoid(x @ w)
loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
loss.backward()
