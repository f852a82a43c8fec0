# d2l 2.5: gradients through Python control flow
import torch


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.tensor(0.3, requires_grad=True)
d = f(a)
d.backward()
print(d)
print(a.grad)
print(a.grad == d / a)
