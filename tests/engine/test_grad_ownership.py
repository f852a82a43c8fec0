"""A leaf's first gradient may be the walk's own array (no copy, as PyTorch's AccumulateGrad
steals it), but never memory that anything else can see: these cases must all get private .grad."""

import numpy as np

import engine as torch


def _shares(a, b) -> bool:
    return np.shares_memory(a.detach().numpy(), b.detach().numpy())


def test_one_gradient_sent_to_two_leaves_gives_two_arrays():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    g = torch.tensor([0.5, -1.0])
    (x + y).backward(g)
    assert not _shares(x.grad, y.grad)
    assert not _shares(x.grad, g) and not _shares(y.grad, g)
    x.grad.mul_(2.0)
    assert y.grad.tolist() == [0.5, -1.0] and g.tolist() == [0.5, -1.0]


def test_a_view_of_the_given_gradient_is_copied():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    g = torch.tensor([1.0, 2.0, 3.0, 4.0])
    x.reshape(4).backward(g)
    assert not _shares(x.grad, g)
    x.grad.zero_()
    assert g.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_retained_intermediate_gradient_and_the_leaf_gradient_are_separate():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = x + 0.0
    z.retain_grad()
    (z * 3.0).sum().backward()
    assert not _shares(x.grad, z.grad)
    x.grad.add_(1.0)
    assert z.grad.tolist() == [3.0, 3.0] and x.grad.tolist() == [4.0, 4.0]


def test_linear_weight_gradient_is_a_writable_private_array_with_torch_values():
    w = torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], requires_grad=True)
    b = torch.tensor([0.1, 0.2], requires_grad=True)
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    torch.nn.functional.linear(x, w, b).sum().backward()
    assert w.grad.tolist() == [[0.0, 2.5, 5.0], [0.0, 2.5, 5.0]]
    assert b.grad.tolist() == [2.0, 2.0]
    assert not _shares(w.grad, x) and not _shares(w.grad, w)
    w.grad.zero_()  # in place, as optimizer.zero_grad(set_to_none=False) does
    assert w.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert x.tolist() == [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]


def test_second_backward_adds_into_the_first_gradient():
    w = torch.tensor([[1.0, 2.0]], requires_grad=True)
    x = torch.tensor([[3.0, 4.0]])
    for _ in range(2):
        torch.mm(x, w.t()).sum().backward()
    assert w.grad.tolist() == [[6.0, 8.0]]
