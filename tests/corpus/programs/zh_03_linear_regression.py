# 中文教程：从零实现线性回归（固定的数据，不用随机数）
import torch

true_w = torch.tensor([2.0, -3.4])
true_b = 4.2
features = torch.linspace(-1, 1, 20).reshape(10, 2)
labels = features @ true_w + true_b

w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


lr = 0.5
for epoch in range(3):
    l = squared_loss(linreg(features, w, b), labels)
    l.sum().backward()
    sgd([w, b], lr, 10)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")
print(f"w 的估计误差: {true_w - w.reshape(true_w.shape)}")
print(f"b 的估计误差: {true_b - b}")
