# In-place functions (exp_, log_, sqrt_, sin_, cos_, abs_, neg_, relu_, sigmoid_, tanh_): the gradient
# uses the value each read before it was overwritten, and an integer tensor cannot hold a float result
import torch
import torch.nn.functional as F

methods = {
    "exp_": (lambda t: t.exp_(), torch.exp_), "log_": (lambda t: t.log_(), torch.log_),
    "sqrt_": (lambda t: t.sqrt_(), torch.sqrt_), "sin_": (lambda t: t.sin_(), torch.sin_),
    "cos_": (lambda t: t.cos_(), torch.cos_), "abs_": (lambda t: t.abs_(), torch.abs_),
    "neg_": (lambda t: t.neg_(), torch.neg_), "relu_": (lambda t: t.relu_(), F.relu_),
    "sigmoid_": (lambda t: t.sigmoid_(), torch.sigmoid_), "tanh_": (lambda t: t.tanh_(), torch.tanh_),
}
for name, (method, function) in methods.items():
    x = torch.tensor([0.5, 2.0, 1.5], requires_grad=True)
    y = x * 1
    r = method(y)
    print(name, r is y, y, y.grad_fn.name(), y._version)
    y.sum().backward()
    print(x.grad)
    z = torch.tensor([0.3, 0.7], requires_grad=True) * 2
    function(z)
    print(z)
    try:
        method(torch.tensor([1, 2]))
    except RuntimeError as e:
        print("RuntimeError", e)
