# Evaluation under torch.inference_mode (the tensors it makes are inference tensors), vmap refusing a
# random op as its default randomness="error" does, and seeded float16 draws of an odd length.
import torch
from torch import nn
from torch.func import vmap

torch.manual_seed(0)
model = nn.Linear(3, 2)
x = torch.randn(4, 3)
with torch.inference_mode():
    print(torch.is_inference_mode_enabled())
    pred = model(x)
print(pred.is_inference(), torch.is_inference(pred), pred.requires_grad, x.is_inference())
print(pred.clone().is_inference(), torch.is_inference_mode_enabled())
try:
    print(pred._version)
except RuntimeError as e:
    print("version:", e)
try:
    pred.add_(1)
except RuntimeError as e:
    print("in place:", e)
try:
    (pred * model.weight[:, :1].T).sum().backward()
except RuntimeError as e:
    print("backward:", e)


def noisy(row):
    return row + torch.randn(3) * 0.1


try:
    vmap(noisy)(x)
except RuntimeError as e:
    print("vmap:", e)
print(vmap(lambda row: nn.functional.dropout(row, 0.5, training=False))(x).shape)
print(torch.randn(17, dtype=torch.float16))
print(torch.randn(5, 7, dtype=torch.float16))
print(torch.empty(21, dtype=torch.float16).normal_(1.0, 0.5))
print(torch.rand(2))
