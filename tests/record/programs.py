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
    "hook-on-leaf": """
w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
def show(grad):
    print("gradient reaching w:", grad)
w.register_hook(show)
loss = (w * w * 3).sum()
loss.backward()
""",
    "hook-modifies-gradient": """
x = torch.tensor([0.5, -3.0, 2.0], requires_grad=True)
h = torch.tanh(x) * 4
h.register_hook(lambda g: g.clamp(min=-1.0, max=1.0))
x.register_hook(lambda g: g * 0.5)
loss = (h ** 2).sum()
loss.backward()
""",
    "two-hooks-one-tensor": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.retain_grad()
y.register_hook(lambda g: g + 1)
def triple(g):
    return g * 3
handle = y.register_hook(triple)
z = (y * x).sum()
z.backward(retain_graph=True)
handle.remove()
z.backward()
""",
    "hook-in-autograd-grad": """
x = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
y = torch.sin(x) * x
y.register_hook(lambda g: g * 10)
(gx,) = torch.autograd.grad(y.sum(), x)
""",
    "function-two-inputs": """
class MaskedMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, mask, scale):
        ctx.save_for_backward(a, b, mask)
        ctx.scale = scale
        return a * b * mask * scale

    @staticmethod
    def backward(ctx, grad):
        a, b, mask = ctx.saved_tensors
        # a gradient for mask too: it needs none, so torch drops it
        return grad * b * mask * ctx.scale, grad * a * mask * ctx.scale, grad * a * b, None

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
mask = torch.tensor([1.0, 0.0, 1.0])
y = MaskedMul.apply(a, b, mask, 2.0)
loss = (y ** 2).sum()
loss.backward()
""",
    "function-used-twice": """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2

class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out

x = torch.tensor([0.5, -1.0], requires_grad=True)
y = Cube.apply(x)
z = Cube.apply(y + 1)
e = Exp.apply(x)
e.register_hook(lambda g: g * 2)
loss = (z + e).sum()
loss.backward()
""",
    "grad-of-non-leaf": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
w = torch.tensor([0.5, -1.0], requires_grad=True)
y = (h * h * w).sum()
gh, gw = torch.autograd.grad(y, (h, w), retain_graph=True)
gx, = torch.autograd.grad(y, x)
print(gh, gw, gx)
""",
    "unpack-split-chunk": """
p = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], requires_grad=True)
a, b, c = p
q, r = p.split([1, 2])
u, v = p.chunk(2, dim=1)
rows = p.unbind(1)
loss = (a * 2 + c * b).sum() + (r ** 2).sum() + q.sum() + (u * v).sum() + rows[1].sum()
loss.backward()
print(p.grad)
""",
}
