# Comparing optimizers on one regression (d2l 12 / CS231n style): RMSprop, Adagrad and AdamW
import torch
from torch import nn

torch.manual_seed(0)
X = torch.randn(32, 3)
y = X @ torch.tensor([[2.0], [-1.0], [0.5]]) + 0.1
for make in (lambda ps: torch.optim.RMSprop(ps, lr=0.01, momentum=0.9),
             lambda ps: torch.optim.Adagrad(ps, lr=0.3),
             lambda ps: torch.optim.AdamW(ps, lr=0.05)):
    torch.manual_seed(1)
    net = nn.Linear(3, 1)
    opt = make(net.parameters())
    for epoch in range(30):
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(X), y)
        loss.backward()
        opt.step()
    print(type(opt).__name__, f"{loss.item():.5f}", net.weight.data)
print(opt)
