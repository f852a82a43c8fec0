# Checking a hand-written backward with torch.autograd.gradcheck, as the "Extending PyTorch"
# tutorial does: double-precision inputs, the right rule passes, a wrong one is caught.
import torch
from torch.autograd import gradcheck, gradgradcheck


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


class WrongSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x  # should be 2 * x


torch.manual_seed(0)
x = torch.randn(3, dtype=torch.double, requires_grad=True)
W = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
print("exp:", gradcheck(MyExp.apply, (x,), eps=1e-6, atol=1e-4))
print("layer:", gradcheck(lambda w, v: torch.tanh(w @ v), (W, x)))
print("second order:", gradgradcheck(lambda v: (v ** 3).sum(), (x,)))
print("wrong square:", gradcheck(WrongSquare.apply, (x,), raise_exception=False))
print(torch.rand(2))

try:
    gradcheck(WrongSquare.apply, (x[:2],))
except RuntimeError as e:
    print(type(e).__name__)
    print(e)

print(torch.autograd.gradcheck(torch.sigmoid, (torch.randn(2, requires_grad=True),), raise_exception=False))
gradcheck(torch.sin, (x.detach(),))
