# A Function with a non-tensor argument: backward returns None for it
import torch


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = MulConstant.apply(a, 5.0)
print(b)
b.sum().backward()
print(a.grad)
print(b.requires_grad, b.is_leaf)
