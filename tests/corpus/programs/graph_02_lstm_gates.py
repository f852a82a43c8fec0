# An LSTM cell written by hand (as CS224n / d2l do): the gates are chunk()ed from one matrix
# product, so all four come from one SplitBackward0; only three are used for the cell state
import torch

torch.manual_seed(0)
W = torch.randn(3, 8, requires_grad=True)
x = torch.randn(2, 3)
c_prev = torch.randn(2, 2)
gates = x @ W
i, f, g, o = gates.chunk(4, dim=1)
print(i.grad_fn, f.output_nr, o.output_nr, i.grad_fn is o.grad_fn)
c = torch.sigmoid(f) * c_prev + torch.sigmoid(i) * torch.tanh(g)
print(c.grad_fn.next_functions)
c.sum().backward()
print(W.grad)
h, rest = torch.split(gates, [3, 5], dim=1)
print(h.grad_fn.name(), rest.output_nr)
