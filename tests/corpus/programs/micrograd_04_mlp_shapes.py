# micrograd-style MLP written with nn.Module, counting parameters
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, nin, nouts):
        super().__init__()
        sizes = [nin] + nouts
        self.layers = nn.ModuleList([nn.Linear(sizes[i], sizes[i + 1]) for i in range(len(nouts))])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i != len(self.layers) - 1:
                x = torch.tanh(x)
        return x


model = MLP(3, [4, 4, 1])
print(sum(p.numel() for p in model.parameters()))
xs = torch.tensor([[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]])
ys = torch.tensor([1.0, -1.0, -1.0, 1.0])
ypred = model(xs).squeeze(1)
loss = ((ypred - ys) ** 2).sum()
loss.backward()
print(ypred.shape, loss.shape, loss.grad_fn)
print(all(p.grad is not None for p in model.parameters()))
print([tuple(p.grad.shape) for p in model.parameters()])
