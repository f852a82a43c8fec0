# Walking the backward graph by hand, printing each node's class name
import torch


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = torch.tensor(4.0)
loss = torch.sigmoid(a * b + c) ** 2
walk(loss.grad_fn)
