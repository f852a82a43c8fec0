# Iterating over a tensor's rows unbinds it (UnbindBackward0), not one select per row; a hook and
# retain_grad on a row see that row's gradient only
import torch

X = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], requires_grad=True)
H = X * 2
rows = []
for r in H:
    rows.append(r)
print(rows[0].grad_fn, [r.output_nr for r in rows])
rows[1].retain_grad()
rows[2].register_hook(lambda g: print("row 2 gets", g))
total = sum((r ** 2).sum() for r in rows[1:])
total.backward()
print(rows[1].grad, X.grad)
print(list(torch.ones(2, 3).unbind(1)))
try:
    first, second = H.detach().requires_grad_() * 1
    first.add_(1)
except RuntimeError as e:
    print(e)
