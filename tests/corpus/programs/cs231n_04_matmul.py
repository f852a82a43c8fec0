# CS231n backprop notes: gradients of a matrix product are matrix products
import torch

W = (torch.arange(50.0).reshape(5, 10) / 50).requires_grad_()
X = (torch.arange(30.0).reshape(10, 3) / 30 - 0.5).requires_grad_()
D = W.mm(X)
dD = torch.ones_like(D) * torch.arange(3.0)
D.backward(dD)
dW = dD.mm(X.T)
dX = W.T.mm(dD)
print(torch.allclose(W.grad, dW), torch.allclose(X.grad, dX))
print(D.grad_fn, W.grad.shape, X.grad.shape)
