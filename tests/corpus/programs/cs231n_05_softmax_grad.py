# CS231n: the gradient of softmax cross-entropy is p − onehot(y)
import torch
import torch.nn.functional as F

scores = torch.tensor([[3.2, 5.1, -1.7], [1.3, 4.9, 2.0]], requires_grad=True)
labels = torch.tensor([0, 2])
loss = F.cross_entropy(scores, labels)
loss.backward()
probs = F.softmax(scores, dim=1)
expected = (probs - F.one_hot(labels, 3)) / 2
print(round(loss.item(), 4))
print(torch.allclose(scores.grad, expected))
print(scores.grad)
