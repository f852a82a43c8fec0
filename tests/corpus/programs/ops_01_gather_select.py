# Picking entries: index_select, gather (the cross-entropy trick), scatter to one-hot
import torch

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], requires_grad=True)
y = torch.tensor([0, 2])
picked = logits.gather(1, y.view(-1, 1))
print(picked)
rows = torch.index_select(logits, 0, torch.tensor([1, 1, 0]))
print(rows)
one_hot = torch.zeros(2, 3).scatter(1, y.unsqueeze(1), 1.0)
print(one_hot)
loss = -(logits.log_softmax(dim=1) * one_hot).sum() / 2 + picked.sum() + rows.sum()
loss.backward()
print(logits.grad)
t = torch.zeros(3, 4)
t.scatter_(0, torch.tensor([[2, 0, 1, 2]]), torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
print(t)
print(torch.gather(torch.arange(6).view(2, 3), 1, torch.tensor([[2, 0], [1, 1]])))
