"""PyTorch's autograd rules, each run on the engine and on torch: same results, same error and
warning texts."""

from __future__ import annotations

import gc
import re
import sys
import warnings

import numpy as np
import pytest
import torch

import engine


def outcome(lib, program):
    """What ``program(lib)`` did: ("ok", value, warnings) or (exception type name, message)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = program(lib)
        return ("ok", value, [str(w.message) for w in caught])
    except Exception as exc:  # noqa: BLE001 - the point is to compare whatever was raised
        return (type(exc).__name__, str(exc))


def same(program):
    """Run ``program`` on both libraries and assert the outcomes are equal; return it."""
    ours, theirs = outcome(engine, program), outcome(torch, program)
    assert ours == theirs
    return ours


def leaf(lib, values):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


# ---- backward twice --------------------------------------------------------------
def test_second_backward_raises_torchs_error():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        y = (x * x).sum()
        y.backward()
        y.backward()

    result = same(program)
    assert result[0] == "RuntimeError"
    assert result[1].startswith("Trying to backward through the graph a second time")


SAVE_NOTHING = {
    "add": lambda t, x: x + 1,
    "sub": lambda t, x: 1 - x,
    "neg": lambda t, x: -x,
    "view": lambda t, x: x.view(2, 2),
    "transpose": lambda t, x: x.view(2, 2).t(),
    "select": lambda t, x: x[0],
    "slice": lambda t, x: x[1:],
    "cat": lambda t, x: t.cat([x, x]),
    "stack": lambda t, x: t.stack([x, x]),
    "expand": lambda t, x: x[0:1].expand(3),
    "sum": lambda t, x: x.sum(0),
}
SAVE_SOMETHING = {
    "mul": lambda t, x: x * 2,
    "exp": lambda t, x: x.exp(),
    "pow": lambda t, x: x**2,
    "mean-of-mul": lambda t, x: (x * x).mean(),
    "max-dim": lambda t, x: x.view(2, 2).max(1).values,
    "index": lambda t, x: x[[0, 1]],
    "relu": lambda t, x: x.relu(),
    "clamp": lambda t, x: x.clamp(0, 1),
}


@pytest.mark.parametrize("name", sorted(SAVE_NOTHING) + sorted(SAVE_SOMETHING))
def test_walking_again_only_fails_where_something_was_saved(name):
    f = {**SAVE_NOTHING, **SAVE_SOMETHING}[name]

    def program(t):
        x = leaf(t, [1.0, -2.0, 3.0, 4.0])
        y = f(t, x).sum()
        y.backward()
        y.backward()
        return x.grad.tolist()

    result = same(program)
    assert (result[0] == "ok") == (name in SAVE_NOTHING)


def test_retain_graph_allows_a_second_backward_and_grads_add_up():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        y = (x * x).sum()
        y.backward(retain_graph=True)
        first = x.grad.tolist()
        y.backward()
        return first, x.grad.tolist()

    result = same(program)
    assert result[1] == ([2.0, 4.0], [4.0, 8.0])


# ---- backward preconditions --------------------------------------------------------------
def test_backward_without_grad_fn():
    result = same(lambda t: t.tensor([1.0, 2.0]).sum().backward())
    assert result == (
        "RuntimeError",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    )


def test_implicit_gradient_needs_a_scalar():
    result = same(lambda t: (leaf(t, [1.0, 2.0]) * 2).backward())
    assert result == ("RuntimeError", "grad can be implicitly created only for scalar outputs")


def test_explicit_gradient_for_a_non_scalar():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        (x * 3).backward(t.tensor([1.0, 0.5], dtype=t.float64))
        return x.grad.tolist()

    assert same(program)[1] == [3.0, 1.5]


# ---- .grad of non-leaves ---------------------------------------------------------------------------------
def test_grad_of_a_non_leaf_warns_then_is_none():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        y = x * 2
        y.sum().backward()
        return y.grad

    result = same(program)
    assert result[1] is None
    assert len(result[2]) == 1 and "is not a leaf Tensor is being accessed" in result[2][0]


def test_retain_grad_keeps_a_non_leaf_grad():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward()
        return y.grad.tolist(), x.grad.tolist(), y.retains_grad, x.is_leaf, y.is_leaf

    assert same(program)[1] == ([4.0, 8.0], [8.0, 16.0], True, True, False)


# ---- in place --------------------------------------------------------------
def test_inplace_on_a_leaf_that_requires_grad():
    result = same(lambda t: leaf(t, [1.0, 2.0]).add_(1))
    assert result == (
        "RuntimeError",
        "a leaf Variable that requires grad is being used in an in-place operation.",
    )


def test_setitem_on_a_leaf_that_requires_grad():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        x[0] = 5.0

    assert same(program)[0] == "RuntimeError"


def test_inplace_on_a_view_of_a_leaf():
    result = same(lambda t: leaf(t, [1.0, 2.0])[0].mul_(2))
    assert result[0] == "RuntimeError" and result[1].startswith("a view of a leaf Variable")


def test_inplace_on_a_leaf_under_no_grad_is_allowed():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        with t.no_grad():
            x.sub_(0.5)
            x[1] = 7.0
        return x.tolist(), x.requires_grad, x.is_leaf, x._version

    assert same(program)[1] == ([0.5, 7.0], True, True, 2)


@pytest.mark.parametrize("modify", ["add_", "mul_", "setitem", "zero_", "copy_"])
@pytest.mark.parametrize("saved", ["input", "output"])
def test_version_counter_error(modify, saved):
    def program(t):
        x = leaf(t, [1.0, 2.0, 3.0])
        h = x * 1.0
        y = h.sin() if saved == "input" else h.exp()  # sin saves its input, exp its output
        target = h if saved == "input" else y
        if modify == "add_":
            target.add_(1)
        elif modify == "mul_":
            target.mul_(2)
        elif modify == "setitem":
            target[0] = 0.0
        elif modify == "zero_":
            target.zero_()
        else:
            target.copy_(t.ones(3, dtype=t.float64))
        y.sum().backward()

    result = same(program)
    assert result[0] == "RuntimeError" and "modified by an inplace operation" in result[1]


def test_inplace_rebases_history():
    def program(t):
        x = leaf(t, [1.0, 2.0, 3.0])
        h = x * 2
        h.mul_(x)
        h.add_(1)
        names = [h.grad_fn.name(), h.grad_fn.next_functions[0][0].name()]
        h.sum().backward()
        return names, x.grad.tolist(), h._version

    result = same(program)
    assert result[1] == (["AddBackward0", "MulBackward0"], [4.0, 8.0, 12.0], 2)


def test_setitem_keeps_gradients_flowing():
    def program(t):
        x = leaf(t, [[1.0, 2.0], [3.0, 4.0]])
        v = leaf(t, [5.0, 6.0])
        h = x * 1.0
        h[0] = v * 2
        h[:, 1] = 0.0
        (h * h).sum().backward()
        return h.grad_fn.name(), x.grad.tolist(), v.grad.tolist()

    result = same(program)
    assert result[1][0] == "torch::autograd::CopySlices"


# ---- requires_grad, numpy, detach --------------------------------------------------------------
def test_requires_grad_on_a_non_leaf():
    result = same(lambda t: (leaf(t, [1.0]) * 2).requires_grad_(False))
    assert result[0] == "RuntimeError" and result[1].startswith(
        "you can only change requires_grad flags of leaf"
    )


def test_requires_grad_spreads():
    def program(t):
        x = leaf(t, [1.0])
        c = t.tensor([2.0], dtype=t.float64)
        return (x * c).requires_grad, (c * c).requires_grad, (x * c).is_leaf, (c * c).is_leaf

    assert same(program)[1] == (True, False, False, True)


def test_only_floats_can_require_grad():
    assert same(lambda t: t.tensor([1, 2], requires_grad=True))[0] == "RuntimeError"


def test_numpy_of_a_tensor_that_requires_grad():
    result = same(lambda t: leaf(t, [1.0]).numpy())
    assert result == (
        "RuntimeError",
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
    )


def test_detach_shares_data_and_drops_history():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        y = x * 2
        d = y.detach()
        d[0] = 10.0  # shares storage with y
        return d.requires_grad, d.grad_fn, d.is_leaf, y.tolist(), y._version

    assert same(program)[1] == (False, None, True, [10.0, 4.0], 1)


# ---- autograd.grad --------------------------------------------------------------
def test_autograd_grad_unused_input():
    def program(t):
        x, z = leaf(t, [1.0]), leaf(t, [2.0])
        return t.autograd.grad((x * 3).sum(), [x, z])

    result = same(program)
    assert result[0] == "RuntimeError" and result[1].startswith(
        "The differentiated Tensor at index 1 appears"
    )


def test_autograd_grad_allow_unused_and_no_accumulation():
    def program(t):
        x, z = leaf(t, [1.0]), leaf(t, [2.0])
        gx, gz = t.autograd.grad((x * 3).sum(), [x, z], allow_unused=True)
        return gx.tolist(), gz, x.grad

    assert same(program)[1] == ([3.0], None, None)


def test_autograd_grad_create_graph_second_order():
    def program(t):
        x = leaf(t, [0.5, 2.0])
        (g,) = t.autograd.grad((x**3).sum(), x, create_graph=True)
        (h,) = t.autograd.grad(g.sum(), x)
        return g.tolist(), h.tolist(), g.requires_grad

    assert same(program)[1] == ([0.75, 12.0], [3.0, 12.0], True)


# ---- accumulation, next_functions, reprs --------------------------------------------------------------
def test_grads_accumulate_across_backward_calls_and_zero():
    def program(t):
        x = leaf(t, [1.0, 2.0])
        (x * 2).sum().backward()
        (x * x).sum().backward()
        acc = x.grad.tolist()
        x.grad = None
        (x * 5).sum().backward()
        return acc, x.grad.tolist()

    assert same(program)[1] == ([4.0, 6.0], [5.0, 5.0])


def _structure(fn, depth=3):
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return fn.name(), tuple((_structure(f, depth - 1), i) for f, i in fn.next_functions)


EXPRS = {
    "x * 2": lambda torch, x, w, c: x * 2,
    "x * c": lambda torch, x, w, c: x * c,
    "c * x": lambda torch, x, w, c: c * x,
    "x + c": lambda torch, x, w, c: x + c,
    "(x * w).sum()": lambda torch, x, w, c: (x * w).sum(),
    "torch.where(x > 0, x, c)": lambda torch, x, w, c: torch.where(x > 0, x, c),
    "x.max(0).values": lambda torch, x, w, c: x.max(0).values,
    "torch.cat([x, c, x])": lambda torch, x, w, c: torch.cat([x, c, x]),
    "x ** 2": lambda torch, x, w, c: x**2,
    "2 ** x": lambda torch, x, w, c: 2**x,
    "x ** w": lambda torch, x, w, c: x**w,
    "1 - x": lambda torch, x, w, c: 1 - x,
    "2 / x": lambda torch, x, w, c: 2 / x,
    "x[0]": lambda torch, x, w, c: x[0],
    "x[[0, 1]]": lambda torch, x, w, c: x[[0, 1]],
    "torch.nn.functional.leaky_relu(x)": lambda torch, x, w, c: torch.nn.functional.leaky_relu(x),
}


@pytest.mark.parametrize("expr", sorted(EXPRS))
def test_next_functions_match(expr):
    def program(t):
        x = leaf(t, [1.0, -2.0])
        w = leaf(t, [3.0, 4.0])
        c = t.tensor([5.0, 6.0], dtype=t.float64)
        return _structure(EXPRS[expr](t, x, w, c).grad_fn)

    assert same(program)[0] == "ok"


def test_accumulate_grad_node_is_shared_and_named():
    x = leaf(engine, [1.0])
    a, b = (x * 2).grad_fn.next_functions[0][0], (x + 1).grad_fn.next_functions[0][0]
    assert a is b and a.name() == "torch::autograd::AccumulateGrad" and a.variable is x


def test_grad_fn_repr():
    x = leaf(engine, [1.0])
    r = repr((x * 2).grad_fn)
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", r)
    tr = repr((leaf(torch, [1.0]) * 2).grad_fn)
    assert re.sub(r"0x[0-9a-f]+", "", r) == re.sub(r"0x[0-9a-f]+", "", tr)


# ---- grad mode --------------------------------------------------------------
def test_no_grad_enable_grad_set_grad_enabled():
    def program(t):
        x = leaf(t, [1.0])
        out = []
        with t.no_grad():
            out.append((x * 2).requires_grad)
            with t.enable_grad():
                out.append((x * 2).requires_grad)
            out.append(t.is_grad_enabled())
        with t.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append(t.is_grad_enabled())
        t.set_grad_enabled(False)
        out.append((x * 2).requires_grad)
        t.set_grad_enabled(True)
        out.append((x * 2).requires_grad)

        @t.no_grad()
        def f(v):
            return v * 2

        out.append(f(x).requires_grad)
        return out

    assert same(program)[1] == [False, True, False, False, True, False, True, False]


# ---- deep graphs --------------------------------------------------------------
def test_chain_of_100000_ops_backward_and_free():
    limit = sys.getrecursionlimit()
    x = leaf(engine, [1.0])
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    assert sys.getrecursionlimit() == limit
    del y
    gc.collect()  # freeing the chain must not hit the recursion limit either


def test_fan_out_sums():
    def program(t):
        x = leaf(t, [2.0])
        a = x * 3
        b = x.exp()
        (a + b + x).sum().backward()
        return x.grad.tolist()

    ours = same(program)[1]
    assert np.isclose(ours[0], 4.0 + np.exp(2.0))


VIEW_INPLACE = {
    "augmented-setitem": lambda t, x, w: _aug(t, x, w),
    "slice-mul_": lambda t, x, w: _slice_mul(x, w),
    "view-add_": lambda t, x, w: _view_add(x, w),
    "transpose-mul_": lambda t, x, w: _t_mul(x, w),
    "setitem-on-view": lambda t, x, w: _set_view(x, w),
    "loop-fill": lambda t, x, w: _loop(t, x, w),
}


def _aug(t, x, w):
    y = t.zeros(2, 3, dtype=t.float64)
    y[0] += x[0] * w[0]
    y[1, 1:] -= x[1, :2]
    return y


def _slice_mul(x, w):
    h = x * 2
    h[1:].mul_(w[1:])
    return h


def _view_add(x, w):
    h = x * 2
    h.view(-1).add_(1.5)
    return h * w


def _t_mul(x, w):
    h = x + 0
    h.t().mul_(w.t())
    return h


def _set_view(x, w):
    h = x * 1.0
    row = h[0]
    row[1] = w[0, 0] * 3
    return h * row


def _loop(t, x, w):
    res = t.zeros(3, dtype=t.float64)
    for i in range(3):
        res[i] = (x[0, i] * w[1, i]).sin()
    return res


@pytest.mark.parametrize("name", sorted(VIEW_INPLACE))
def test_inplace_through_views_matches_torch(name):
    def program(t):
        x = leaf(t, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        w = leaf(t, [[0.5, -1.0, 2.0], [1.5, 0.25, -2.0]])
        out = VIEW_INPLACE[name](t, x, w)
        (out * out).sum().backward()
        return out.tolist(), x.grad.tolist(), w.grad.tolist(), out.grad_fn.name()

    ours, theirs = outcome(engine, program), outcome(torch, program)
    assert ours[0] == theirs[0] == "ok"
    for a, b in zip(ours[1][:3], theirs[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


KEEP_ONLY_WHAT_IS_READ = {  # which tensor is changed in place after use
    "mul-constant-changed": "c",  # x * c keeps c (read by x's rule): error
    "mul-input-changed": "h",  # h * c keeps no h (c needs no grad): fine
    "div-denominator-changed": "d",  # c / d keeps d: error
    "matmul-changed": "m",  # m @ c keeps c only: fine
}


@pytest.mark.parametrize("name", sorted(KEEP_ONLY_WHAT_IS_READ))
def test_only_tensors_a_rule_reads_are_kept(name):
    def program(t):
        x = leaf(t, [1.0, 2.0])
        c = t.tensor([3.0, 4.0], dtype=t.float64)
        h = x * 1
        d = x * 1
        m = x * 1
        y = (x * c).sum() + (h * c).sum() + (c / d).sum() + (m @ c)
        {"c": c, "h": h, "d": d, "m": m}[KEEP_ONLY_WHAT_IS_READ[name]].add_(1)
        y.backward()
        return x.grad.tolist()

    same(program)


def test_setitem_of_a_scaled_row_is_allowed():
    def program(t):
        x = leaf(t, [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
        w = leaf(t, [0.5, 1.0, -1.0])
        h = x * w
        h[0] = h[0] * 2
        h.sum().backward()
        return x.grad.tolist(), w.grad.tolist()

    assert same(program)[0] == "ok"


def test_backward_twice_through_a_node_that_kept_nothing():
    def program(t):
        x = t.tensor([[1.0, 2.0]], dtype=t.float64)
        w = t.tensor([[3.0], [4.0]], dtype=t.float64)
        b = leaf(t, [0.5])
        y = t.addmm(b, x, w).sum()
        y.backward()
        y.backward()
        return b.grad.tolist()

    same(program)


def test_zero_dim_grad_accumulates_to_a_tensor_that_supports_in_place_ops():
    for lib in (engine, torch):
        w = lib.tensor(1.0, requires_grad=True)
        (w * 2).backward()
        (w * 3).backward()
        assert w.grad.item() == 5.0
        w.grad.zero_()
        assert w.grad.item() == 0.0


def test_a_graph_is_freed_by_reference_counting_alone():
    """No reference cycles per op or per leaf: dropping the output frees the whole graph at once."""
    import weakref

    gc.disable()
    try:
        x = engine.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).relu().exp().sigmoid().tanh().sum()  # ops that save their own output
        nodes = []
        fn = y.grad_fn
        while fn is not None and fn.next_functions:
            nodes.append(weakref.ref(fn))
            fn = fn.next_functions[0][0]
        acc = weakref.ref(fn)  # the leaf's AccumulateGrad
        assert len(nodes) == 6 and type(fn).__name__ == "AccumulateGrad"
        del y, fn
        assert all(r() is None for r in nodes)
        assert acc() is None
        # The leaf makes a new AccumulateGrad on its next use, and gradients still arrive.
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
    finally:
        gc.enable()


def test_a_wrapped_number_is_shared_until_recording_and_never_changes():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    a, b = x * 3.0, x * 3.0
    (shared_a,), (shared_b,) = ([t for k, t, _ in n._saved if k == "b"] for n in (a.grad_fn, b.grad_fn))
    assert shared_a is shared_b and shared_a.tolist() == 3.0
    a.mul_(10.0)  # in place on a result, then a backward through both
    (a + b).sum().backward()
    assert x.grad.tolist() == [33.0, 33.0] and (x * 3.0).tolist() == [3.0, 6.0]
    with engine.trace.recording() as rec:
        (x * 3.0 + x * 3.0).sum()
    constants = [n for n in rec.trace.nodes if n.kind == "leaf" and n.name == "3.0"]
    assert len(constants) == 2  # each use of the number is a node of its own in the trace
