# Class-weighted cross entropy / nll_loss with reduction="mean": the gradient's float32 last digits,
# printed at full precision as tutorials print them
import torch
import torch.nn.functional as F

torch.manual_seed(3)
weight = torch.tensor([0.2, 1.0, 3.0, 0.7])
logp = torch.randn(6, 4).log_softmax(1).requires_grad_()
target = torch.tensor([0, 3, 2, 2, 1, 0])
loss = F.nll_loss(logp, target, weight=weight)
(loss * 0.37).backward()
print(loss.item())
print([v.item() for v in logp.grad.flatten()])
logits = torch.randn(5, 4, requires_grad=True)
ce = F.cross_entropy(logits, torch.tensor([1, 0, 3, 3, 2]), weight=weight, ignore_index=0)
print(ce.item(), ce.grad_fn.next_functions)
