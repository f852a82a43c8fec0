# torch.utils.data: TensorDataset and DataLoader with batches
import torch
from torch.utils.data import DataLoader, TensorDataset

X = torch.arange(10.0).reshape(5, 2)
y = torch.tensor([0, 1, 0, 1, 1])
ds = TensorDataset(X, y)
print(len(ds), ds[1])
loader = DataLoader(ds, batch_size=2, shuffle=False)
print(len(loader))
for xb, yb in loader:
    print(xb, yb)
loader = DataLoader(ds, batch_size=2, drop_last=True)
print(len(loader), [tuple(xb.shape) for xb, _ in loader])
