# ExponentialLR with a small model trained on fixed data
import torch
from torch import nn, optim

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.1, -0.1]]))
    model.bias.zero_()
X = torch.tensor([[1.0, 2.0], [2.0, 1.0], [0.0, 1.0]])
y = torch.tensor([[1.0], [2.0], [0.5]])
opt = optim.SGD(model.parameters(), lr=0.1)
sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
for epoch in range(4):
    opt.zero_grad()
    loss = nn.MSELoss()(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
    print(epoch, f"{loss.item():.4f}", f"{sched.get_last_lr()[0]:.4f}")
