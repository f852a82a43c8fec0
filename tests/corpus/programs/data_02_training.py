# A training loop over a shuffled DataLoader (printing only what does not depend on the order)
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.linspace(-1, 1, 16).reshape(8, 2)
y = X.sum(1, keepdim=True)
loader = DataLoader(TensorDataset(X, y), batch_size=4, shuffle=True)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
seen = 0
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        seen += xb.shape[0]
print(seen, len(loader.dataset), loss.shape)
