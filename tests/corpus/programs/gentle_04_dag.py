# "A Gentle Introduction to torch.autograd": the DAG is rebuilt from scratch each call
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(2):
    q = (a * a).sum()
    print(q.grad_fn)
    print(q.grad_fn.next_functions)
    q.backward()
print(a.grad)
