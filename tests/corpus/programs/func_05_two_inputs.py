# A Function of two tensors (a linear layer), checked against autograd
import torch


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
w = torch.tensor([[0.1, -0.2], [0.3, 0.4]], requires_grad=True)
b = torch.tensor([0.5, -0.5], requires_grad=True)
out = LinearFunction.apply(x, w, b)
out.pow(2).sum().backward()
gw, gb = w.grad.clone(), b.grad.clone()
w.grad = None
b.grad = None
(x @ w.t() + b).pow(2).sum().backward()
print(torch.allclose(gw, w.grad), torch.allclose(gb, b.grad))
print(gw)
print(out.grad_fn.name())
