# allclose, equal, all, any and isclose-style checks
import torch

a = torch.tensor([1.0, 2.0, 3.0])
b = a + 1e-9
print(torch.allclose(a, b), torch.equal(a, b), torch.equal(a, a.clone()))
print(torch.allclose(a, a + 0.1), torch.allclose(a, a + 0.1, atol=0.2))
print((a > 0).all(), (a > 2).any(), torch.all(a < 3), torch.any(a < 0))
print((a > 0).all().item(), bool((a > 2).any()))
print(a.allclose(b), a.equal(b))
