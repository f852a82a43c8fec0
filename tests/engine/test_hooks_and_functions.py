"""Tensor hooks, torch.autograd.Function and the .grad of a create_graph backward, on the engine
and on PyTorch: same values, gradients, grad_fn names, errors and warnings."""

from __future__ import annotations

import pytest
from course_oracle import leaf, same

import engine
from engine import trace as T

# ---- tensor hooks --------------------------------------------------------------------------------------


def test_a_hook_sees_the_gradient_of_a_non_leaf():
    def program(t):
        seen = []
        x = leaf(t, [1.0, 2.0, 3.0])
        y = x * 2
        y.register_hook(lambda g: seen.append(g.clone()))
        (y ** 2).sum().backward()
        return seen, x.grad

    same(program)


def test_a_hook_that_returns_a_tensor_replaces_the_gradient_downstream():
    def program(t):
        x = leaf(t, [1.0, -2.0])
        y = x.sin()
        y.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        return x.grad

    same(program)


def test_a_leaf_hook_changes_what_is_written_into_grad_and_runs_every_pass():
    def program(t):
        calls = []
        w = leaf(t, [0.5, 1.5])
        w.register_hook(lambda g: calls.append(1) or g.clamp(-1.0, 1.0))
        (w * t.tensor([4.0, -0.2], dtype=t.float64)).sum().backward()
        (w * 3).sum().backward()
        return w.grad, len(calls)

    same(program)


def test_removed_hooks_no_longer_run_and_hooks_run_in_order():
    def program(t):
        order = []
        x = leaf(t, [1.0])
        y = x * 3
        h1 = y.register_hook(lambda g: order.append("first") or g + 1)
        y.register_hook(lambda g: order.append("second") or g * 2)
        y.backward(retain_graph=True)
        h1.remove()
        x.grad = None
        y.backward()
        return order, x.grad

    same(program)


def test_hooks_run_before_retain_grad_and_in_autograd_grad():
    def program(t):
        x = leaf(t, 2.0)
        y = x * x
        y.retain_grad()
        y.register_hook(lambda g: g + 100)
        y.backward(retain_graph=True)
        (gx,) = t.autograd.grad(y, x)
        return y.grad, x.grad, gx

    same(program)


def test_hooks_with_create_graph_are_differentiated_through():
    def program(t):
        x = leaf(t, [1.5, -0.5])
        y = x ** 3
        y.register_hook(lambda g: g * x)
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = t.autograd.grad(g.sum(), x)
        return g, h

    same(program)


@pytest.mark.parametrize("bad", ["no-grad", "number", "size", "dtype"])
def test_hook_errors_are_pytorch_s(bad):
    def program(t):
        x = leaf(t, [1.0, 2.0])
        if bad == "no-grad":
            return t.ones(2).register_hook(lambda g: g)
        hook = {"number": lambda g: 3, "size": lambda g: t.ones(3, dtype=t.float64),
                "dtype": lambda g: g.float()}[bad]
        y = x * 2
        y.register_hook(hook)
        y.sum().backward()
        return x.grad

    same(program)


def test_hook_steps_are_recorded_between_the_arrival_and_the_node_s_rules():
    with T.recording() as rec:
        x = engine.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        x.register_hook(lambda g: None)
        y.sum().backward()
    steps = rec.trace.passes[0].steps
    kinds = [(s.kind, rec.trace.nodes[s.node].kind) for s in steps]
    assert kinds == [("op", "op"), ("hook", "op"), ("op", "op"), ("hook", "leaf"), ("leaf", "leaf")]
    hook_y, hook_x = steps[1], steps[3]
    assert hook_y.node == steps[2].node and hook_y.hook == "<lambda>"
    assert hook_y.grad_before.tolist() == [1.0, 1.0] and hook_y.grad_after.tolist() == [10.0, 10.0]
    assert steps[2].upstream.tolist() == [10.0, 10.0]  # the node's rules ran on what the hook returned
    assert hook_x.grad_after is None and hook_x.grad_before.tolist() == [20.0, 20.0]
    assert x.grad.tolist() == [20.0, 20.0]


def test_a_hooked_leaf_freed_drops_its_hooks():
    import gc

    from engine import hooks

    before = len(hooks._LEAF)
    x = engine.ones(2, requires_grad=True)
    x.register_hook(lambda g: g)
    assert len(hooks._LEAF) == before + 1
    del x
    gc.collect()
    assert len(hooks._LEAF) == before


# ---- torch.autograd.Function ------------------------------------------------------------------------------
def _functions(t):
    class Exp(t.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    class MulConstant(t.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class Linear(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b):
            ctx.save_for_backward(x, w)
            return x.mm(w.t()) + b

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return (g.mm(w) if ctx.needs_input_grad[0] else None, g.t().mm(x), g.sum(0))

    return Exp, MulConstant, Linear


def test_a_function_s_output_values_grads_and_names():
    def program(t):
        Exp, MulConstant, _ = _functions(t)
        x = leaf(t, [0.0, 1.0, -0.5])
        y = Exp.apply(x)
        z = MulConstant.apply(y, 3.0)
        z.sum().backward()
        first = z.grad_fn.next_functions[0][0]
        names = [z.grad_fn.name(), type(z.grad_fn).__name__, first.name(), len(z.grad_fn.next_functions),
                 type(first.next_functions[0][0]).__name__]
        return y, z, x.grad, names

    same(program)


def test_a_function_of_several_tensors_and_needs_input_grad():
    def program(t):
        _, _, Linear = _functions(t)
        x = t.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=t.float64)
        w = leaf(t, [[0.1, -0.2], [0.3, 0.4]])
        b = leaf(t, [0.5, -0.5])
        out = Linear.apply(x, w, b)
        out.pow(2).sum().backward()
        return out, w.grad, b.grad, [f is None for f, _ in out.grad_fn.next_functions]

    same(program)


def test_a_function_s_saved_tensors_are_freed_and_checked_for_in_place_changes():
    def freed(t):
        Exp, _, _ = _functions(t)
        y = Exp.apply(leaf(t, [1.0]))
        y.sum().backward()
        y.sum().backward()

    def modified(t):
        Exp, _, _ = _functions(t)
        x = leaf(t, [1.0])
        y = Exp.apply(x * 1)
        with t.no_grad():
            y.mul_(2)
        y.sum().backward()

    same(freed)
    same(modified)


def test_a_function_differentiated_twice_uses_its_backward_s_graph():
    def program(t):
        Exp, _, _ = _functions(t)
        x = leaf(t, [0.3, -1.2])
        (g,) = t.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
        (h,) = t.autograd.grad((g * g).sum(), x)
        return g, h

    same(program)


@pytest.mark.parametrize("bad", ["count", "shape", "no-backward", "forward-mode"])
def test_function_errors_are_pytorch_s(bad):
    def program(t):
        class F(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            if bad != "no-backward":
                @staticmethod
                def backward(ctx, g):
                    return (g, g) if bad == "count" else t.ones(3, dtype=t.float64)

        x = leaf(t, [1.0, 2.0])
        if bad == "forward-mode":
            with t.autograd.forward_ad.dual_level():
                return F.apply(t.autograd.forward_ad.make_dual(x.detach(), t.ones(2, dtype=t.float64)))
        F.apply(x).sum().backward()
        return x.grad

    same(program)


def test_a_function_node_is_recorded_like_a_built_in_one():
    Exp, _, _ = _functions(engine)
    with T.recording() as rec:
        x = engine.tensor([1.0, 2.0], requires_grad=True)
        y = Exp.apply(x)
        y.sum().backward()
    node = next(n for n in rec.trace.nodes if n.kind == "op" and n.grad_fn == "ExpBackward")
    assert node.op == "autograd_function" and node.params == {"function": "Exp"}
    assert [s.name for s in node.saved] == ["saved0"] and node.saved[0].value.tolist() == y.tolist()
    step = next(s for s in rec.trace.passes[0].steps if s.node == node.id)
    assert step.kind == "op" and [f.grad.tolist() for f in step.sent] == [y.tolist()]
    assert node.formulas == ("gₓ = Exp.backward(ctx, g)",)


# ---- .grad after a create_graph backward ------------------------------------------------------------------
def test_grad_after_create_graph_is_a_copy_with_a_graph_and_a_warning():
    def program(t):
        x = leaf(t, 2.0)
        (x ** 3).backward(create_graph=True)
        first = x.grad
        names = [first.grad_fn.name(),
                 [None if f is None else f.name() for f, _ in first.grad_fn.next_functions]]
        (x ** 3).backward(create_graph=True)
        w = leaf(t, [2.0])
        (w * 3).sum().backward(create_graph=True)
        return first, names, x.grad, w.grad

    same(program)
