# A straight-through estimator: round forward, pass the gradient through
import torch


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


x = torch.tensor([0.2, 1.7, -0.6], requires_grad=True)
y = RoundSTE.apply(x)
print(y)
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x.grad)
