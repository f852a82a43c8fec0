# topk, sort and argsort: the named tuples torch prints
import torch

scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.9]], requires_grad=True)
best = torch.topk(scores, 2)
print(best)
print(best.values.grad_fn, best.indices)
s = scores.sort(dim=1, descending=True)
print(s)
print(torch.argsort(scores, dim=1))
print(scores.argsort(descending=True))
values, idx = scores.topk(1, dim=0, largest=False)
print(values, idx)
(best.values.sum() + s.values[:, 0].sum()).backward()
print(scores.grad)
