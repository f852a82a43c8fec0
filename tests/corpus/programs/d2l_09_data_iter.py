# d2l 3.2 (linear regression from scratch): synthetic data, a shuffling generator, minibatch SGD
import random

import torch


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


torch.manual_seed(0)
random.seed(0)
true_w, true_b = torch.tensor([2, -3.4]), 4.2
features, labels = synthetic_data(true_w, true_b, 100)
for X, y in data_iter(10, features, labels):
    print(X.shape, y.shape, X[0])
    break
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr, num_epochs, batch_size = 0.03, 3, 10
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):f}')
print(f'w error: {true_w - w.reshape(true_w.shape)}', f'b error: {true_b - b}')
print(random.random(), random.randint(1, 6), random.choice(['a', 'b', 'c']), random.sample(range(10), 3))
