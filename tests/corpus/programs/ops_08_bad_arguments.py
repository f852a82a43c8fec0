# Edge cases and bad arguments of the ops courses read tensors with: torch's values and errors
import torch
x = torch.arange(6.0).view(2, 3)
v = torch.tensor([3.0, 1.0, 2.0])
cases = [
 lambda: x.split(0), lambda: x.split([1, -1, 2]), lambda: x.chunk(5), lambda: x.chunk(2, 1), lambda: torch.arange(5.).chunk(3),
 lambda: x.narrow(1, -2, 2), lambda: x.narrow(1, 4, 0), lambda: x.narrow(0, 0, 3),
 lambda: x.gather(1, torch.tensor([[-1]])), lambda: x.gather(0, torch.tensor([0, 1])), lambda: x.gather(1, torch.tensor([[0]], dtype=torch.int32)),
 lambda: x.index_select(1, torch.tensor([3])), lambda: x.index_select(0, torch.tensor([[0]])), lambda: v.index_select(0, torch.tensor(1)),
 lambda: x.scatter(1, torch.tensor([[0]]), 7), lambda: x.scatter(1, torch.tensor([[5]]), 7.0),
 lambda: torch.diag(torch.ones(2, 2, 2)), lambda: torch.diag(x, 5), lambda: torch.diag(torch.tensor(1.0)),
 lambda: v.topk(0), lambda: v.topk(-1), lambda: v.topk(2, largest=False, sorted=True), lambda: torch.tensor(2.0).topk(1),
 lambda: v.sort(descending=True, stable=True), lambda: torch.tensor([1.0, float('nan'), 0.0]).sort(), lambda: torch.tensor([1.0, float('nan'), 0.0]).sort(descending=True),
 lambda: torch.tensor([2, 1, 3]).sort(), lambda: torch.tensor([2, 1, 3]).topk(2), lambda: torch.tensor([True, False]).argsort(),
 lambda: x.prod(1, dtype=torch.float64), lambda: torch.tensor([2, 3]).prod(), lambda: torch.tensor([2, 3], dtype=torch.int32).cumsum(0), lambda: x.cumsum(2),
 lambda: torch.tensor(3.0).cumsum(0), lambda: torch.tensor(3.0).prod(0), lambda: x.prod(0, True),
 lambda: torch.broadcast_to(v, (2, 2)), lambda: v.broadcast_to(2, 3), lambda: torch.outer(v, torch.tensor([1, 2])),
 lambda: x.stride(-1), lambda: x[:, 1].stride(), lambda: x.expand(4, 2, 3).stride(), lambda: torch.ones(3, 1).stride(),
 lambda: torch.relu_(torch.tensor([-1.0, 2.0])), lambda: torch.ones(2).sigmoid_(), lambda: torch.tensor([1, -2]).relu_(),
 lambda: torch.split(x, 2, dim=1), lambda: x.split(1, -1),
]
for i, f in enumerate(cases):
    try:
        print(i, f())
    except Exception as e:
        print(i, type(e).__name__, e)
