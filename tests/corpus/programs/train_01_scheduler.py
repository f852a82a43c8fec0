# A learning-rate schedule: StepLR halves the rate every two epochs
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR

model = nn.Linear(1, 1)
optimizer = optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(6):
    optimizer.step()
    print(epoch, scheduler.get_last_lr(), optimizer.param_groups[0]["lr"])
    scheduler.step()
