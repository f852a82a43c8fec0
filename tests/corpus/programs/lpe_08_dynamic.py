# "Learning PyTorch with Examples": a dynamic graph, reusing a parameter a varying number of times
import math

import torch


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.0))
        self.b = torch.nn.Parameter(torch.tensor(1.0))
        self.c = torch.nn.Parameter(torch.tensor(0.0))
        self.d = torch.nn.Parameter(torch.tensor(-0.1))
        self.e = torch.nn.Parameter(torch.tensor(0.01))

    def forward(self, x, k):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, k):
            y = y + self.e * x ** exp
        return y


x = torch.linspace(-math.pi, math.pi, 50)
model = DynamicNet()
for k in (4, 5, 6):
    out = model(x, k)
    names = []
    fn = out.grad_fn
    while fn is not None and fn.name() == "AddBackward0":
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    print(k, len(names), out.shape)
loss = model(x, 6).pow(2).mean()
loss.backward()
print(model.e.grad is not None, model.a.grad.shape)
