# NumPy and torch: from_numpy, numpy(), and a numerical gradient check in NumPy
import numpy as np
import torch

a = np.array([1.0, 2.0, 3.0])
t = torch.from_numpy(a)
print(t, t.dtype)
print(t.numpy(), type(t.numpy()).__name__)


def f(v):
    return np.sum(v ** 3)


eps = 1e-6
num = np.array([(f(a + eps * np.eye(3)[i]) - f(a - eps * np.eye(3)[i])) / (2 * eps) for i in range(3)])
x = torch.tensor(a, requires_grad=True)
(x ** 3).sum().backward()
print(np.allclose(num, x.grad.numpy()), np.round(num, 3))
print(np.zeros((2, 2)).shape, np.arange(4).reshape(2, 2).T.tolist(), np.float32(1.5).item())
