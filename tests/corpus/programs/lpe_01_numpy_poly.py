# "Learning PyTorch with Examples": fitting sin(x) with a cubic in plain NumPy
import math

import numpy as np

x = np.linspace(-math.pi, math.pi, 200)
y = np.sin(x)

a, b, c, d = 0.1, -0.2, 0.05, 0.0
learning_rate = 1e-5
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = np.square(y_pred - y).sum()
    if t % 100 == 99:
        print(t, round(float(loss), 3))
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f"Result: y = {a:.3f} + {b:.3f} x + {c:.3f} x^2 + {d:.3f} x^3")
