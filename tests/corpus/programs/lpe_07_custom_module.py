# "Learning PyTorch with Examples": a custom nn.Module with four parameters
import math

import torch


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.1, dtype=torch.float64))
        self.b = torch.nn.Parameter(torch.tensor(0.8, dtype=torch.float64))
        self.c = torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64))
        self.d = torch.nn.Parameter(torch.tensor(-0.1, dtype=torch.float64))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f"y = {self.a.item():.3f} + {self.b.item():.3f} x + {self.c.item():.3f} x^2 + {self.d.item():.3f} x^3"


x = torch.linspace(-math.pi, math.pi, 200, dtype=torch.float64)
y = torch.sin(x)
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, round(loss.item(), 3))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
print([name for name, _ in model.named_parameters()])
