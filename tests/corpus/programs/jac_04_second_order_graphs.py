# Second derivatives with create_graph=True: the graph of a first derivative, as torch draws it
import torch
import torch.nn.functional as F


def names(fn, seen=None):
    seen = set() if seen is None else seen
    if fn is None or fn in seen:
        return []
    seen.add(fn)
    out = [type(fn).__name__]
    for nxt, _ in fn.next_functions:
        out += names(nxt, seen)
    return out


x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
for name, f in [("tanh", torch.tanh), ("sigmoid", torch.sigmoid), ("relu", lambda v: F.relu(v) * v),
                ("cube", lambda v: v ** 3), ("sqrt", lambda v: torch.sqrt(v * v + 1)),
                ("softmax", lambda v: F.softmax(v, dim=0) * torch.arange(3.0)),
                ("log_softmax", lambda v: F.log_softmax(v, dim=0) * torch.arange(3.0))]:
    g, = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    h, = torch.autograd.grad((g * g).sum(), x)
    print(name, g.grad_fn.name(), names(g.grad_fn), h)
W = torch.tensor([[1.0, -0.5], [0.25, 2.0]], requires_grad=True)
loss = torch.tanh(x[:2] @ W).sum()
gW, = torch.autograd.grad(loss, W, create_graph=True)
print(names(gW.grad_fn))
print(torch.autograd.grad(gW.pow(2).sum(), W)[0])
