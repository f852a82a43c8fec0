# Module hooks as tutorials use them: saving activations, scaling inputs, watching gradients
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
acts = {}


def keep(name):
    def hook(module, inputs, output):
        acts[name] = output.detach()
    return hook


handles = [net[0].register_forward_hook(keep("fc1")), net[1].register_forward_hook(keep("relu"))]
net[2].register_forward_pre_hook(lambda module, inputs: (inputs[0] * 2,))
x = torch.randn(2, 3, requires_grad=True)
out = net(x)
print({k: v.shape for k, v in acts.items()}, (acts["relu"] >= 0).all())
print(out.grad_fn)


def show(module, grad_input, grad_output):
    print(type(module).__name__, [None if g is None else tuple(g.shape) for g in grad_input],
          [tuple(g.shape) for g in grad_output])


def halve(module, grad_input, grad_output):
    return (grad_input[0] * 0.5,)


net[0].register_full_backward_hook(show)
net[0].register_full_backward_hook(halve)
y = net(x)
print(y.grad_fn, y.grad_fn.next_functions[0][0])
y.sum().backward()
print(x.grad)
for h in handles:
    h.remove()
net(x)
print(len(acts))
