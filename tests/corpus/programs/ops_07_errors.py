# Bad arguments get torch's errors
import torch

x = torch.arange(6.0).view(2, 3)
for f in (lambda: x.split([1, 2]), lambda: torch.outer(x, x), lambda: x.topk(5),
          lambda: x.gather(1, torch.tensor([[3]])), lambda: x.narrow(1, 2, 2),
          lambda: x.index_select(0, torch.tensor([0.0])), lambda: x.chunk(0)):
    try:
        f()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
