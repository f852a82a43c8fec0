"""Course-style programs beyond the examples, for the recording of real PyTorch: the ops, layers,
losses and autograd calls a deep-learning course uses, each small enough to read."""

from __future__ import annotations

PROGRAMS = {
    "logistic-regression": """
torch.manual_seed(1)
X = torch.randn(8, 2)
y = (X[:, 0] + X[:, 1] > 0).float()
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(3):
    p = torch.sigmoid(X @ w + b)
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.5 * w.grad
        b -= 0.5 * b.grad
        w.grad.zero_()
        b.grad.zero_()
""",
    "softmax-by-hand": """
z = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], requires_grad=True)
e = torch.exp(z - z.max(dim=1, keepdim=True)[0])
p = e / e.sum(dim=1, keepdim=True)
target = torch.tensor([1, 2])
loss = -torch.log(p[torch.arange(2), target]).mean()
loss.backward()
""",
    "tanh-mlp-mse-adam": """
torch.manual_seed(2)
net = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
opt = optim.Adam(net.parameters(), lr=0.01)
x = torch.randn(5, 2)
t = torch.randn(5, 1)
for i in range(2):
    opt.zero_grad()
    loss = F.mse_loss(net(x), t)
    loss.backward()
    opt.step()
""",
    "autograd-grad": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2 * torch.exp(-x)).sum()
(g,) = torch.autograd.grad(y, x)
print(g)
""",
    "reshape-and-cat": """
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([0.5, -0.5], requires_grad=True)
h = torch.cat([a.reshape(-1), b * 2])
m = h.view(3, 2).t()
out = (m.relu() * m).sum()
out.backward()
""",
    "where-and-clamp": """
x = torch.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
y = torch.where(x > 0, x ** 2, -x)
z = torch.clamp(y, min=0.3, max=3.0).mean()
z.backward()
""",
    "two-losses-shared-weight": """
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
x1 = torch.tensor([1.0, 2.0])
x2 = torch.tensor([-1.0, 0.5])
l1 = (w @ x1).pow(2).sum()
l2 = torch.tanh(w @ x2).sum()
total = l1 + 0.1 * l2
total.backward()
""",
    "in-place": """
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
h = x * 2
h.clamp_(min=0.0)
h.mul_(3)
c = torch.tensor([1.0, 1.0, 1.0])
c += 1
loss = (h * c).sum()
loss.backward()
""",
    "retain-grad-chain": """
x = torch.tensor(0.5, requires_grad=True)
a = x * 4
a.retain_grad()
b = torch.sin(a)
b.retain_grad()
c = b * a
c.backward()
""",
}
