# torch.func.vmap as the function-transform tutorials use it: a batched dot product, a model applied
# per example, per-sample gradients with vmap(grad(...)), and in_dims/out_dims.
import torch
from torch.func import grad, vmap

torch.manual_seed(0)
x = torch.randn(5, 3)
w = torch.randn(3)
b = torch.tensor(0.5)

print(vmap(torch.dot)(x, x))
print(vmap(torch.dot, in_dims=(0, None))(x, w))


def predict(weight, bias, xi):
    return torch.tanh(xi @ weight + bias)


print(vmap(predict, in_dims=(None, None, 0))(w, b, x))
print(vmap(lambda col: col.sum(), in_dims=1)(x))
print(vmap(lambda r: r * 2, out_dims=1)(x).shape)


def sample_loss(weight, xi, yi):
    return (predict(weight, b, xi) - yi) ** 2


y = torch.randn(5)
per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))(w, x, y)
print(per_sample)
print(torch.allclose(per_sample.mean(0), grad(lambda p: vmap(sample_loss, in_dims=(None, 0, 0))(p, x, y).mean())(w)))

stats = vmap(lambda r: (r.mean(), r.max()))(x)
print(stats[0], stats[1])

try:
    vmap(torch.add)(x, torch.randn(4, 3))
except ValueError as e:
    print("error:", e)
