# why: w nonfinite log
import torch

torch.manual_seed(0)
x = torch.randn(4, 3) * 100
w = torch.randn(3, 5, requires_grad=True)
logits = x @ w
p = torch.softmax(logits, dim=1)
target = torch.tensor([0, 1, 2, 3])
loss = -torch.log(p[torch.arange(4), target]).mean()
loss.backward()
