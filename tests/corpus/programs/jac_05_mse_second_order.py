# A second derivative through mse_loss (a gradient penalty, as in WGAN-GP or meta-learning tutorials):
# torch records the first derivative as one MseLossBackwardBackward0 node.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(4, 3)
y = torch.randn(4)
loss = F.mse_loss(x @ w, y)
(g,) = torch.autograd.grad(loss, w, create_graph=True)
print(g)
fn = g.grad_fn
while fn is not None:
    print(type(fn).__name__, [None if f is None else f.name() for f, _ in fn.next_functions])
    fn = next((f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"), None)
penalty = g.pow(2).sum()
penalty.backward()
print(w.grad)

a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
b = torch.tensor([1.0, 0.0, 1.5], requires_grad=True)
for reduction in ("mean", "sum", "none"):
    out = F.mse_loss(a, b, reduction=reduction)
    ga, gb = torch.autograd.grad(out.sum(), (a, b), create_graph=True)
    print(reduction, ga, gb)
    print(gb.grad_fn.next_functions)
    print(torch.autograd.grad((ga * gb).sum(), (a, b)))
