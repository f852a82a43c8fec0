# "A Gentle Introduction to torch.autograd": freezing parameters, then a new head
from torch import nn, optim

model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
for param in model.parameters():
    param.requires_grad = False
model[2] = nn.Linear(3, 10)
print([p.requires_grad for p in model.parameters()])
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
print(len(optimizer.param_groups[0]["params"]))
print(model)
