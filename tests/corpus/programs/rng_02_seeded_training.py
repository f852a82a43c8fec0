# A seeded training loop with dropout and a shuffled loader: its losses are PyTorch's
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
X = torch.randn(32, 3)
y = X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(32, 1)
loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=True)
model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 1))
nn.init.xavier_uniform_(model[0].weight)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: loss {total / len(loader):.4f}")
print(next(iter(loader))[1].view(-1))
