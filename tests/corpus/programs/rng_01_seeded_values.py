# Seeded random numbers as a tutorial prints them: the same seed gives PyTorch's very values
import torch
from torch import nn

torch.manual_seed(0)
print(torch.randn(3))
print(torch.rand(2, 3))
print(torch.randint(0, 10, (6,)))
print(torch.randperm(8))
print(torch.randn(20).sum())
layer = nn.Linear(4, 2)
print(layer.weight)
print(layer.bias)
g = torch.Generator().manual_seed(42)
print(torch.randn(2, 2, generator=g))
print(torch.normal(2.0, 0.5, size=(4,)))
print(torch.bernoulli(torch.full((6,), 0.5)))
state = torch.get_rng_state()
a = torch.rand(3)
torch.set_rng_state(state)
print(torch.equal(a, torch.rand(3)), torch.initial_seed())
