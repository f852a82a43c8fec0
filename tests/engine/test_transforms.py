"""Jacobians, Hessians and function transforms (torch.autograd.functional, torch.func) and forward
mode's dual tensors (torch.autograd.forward_ad), on the engine and on PyTorch."""

from __future__ import annotations

import pytest
from course_oracle import same

import engine
from engine import trace as T


def _f(t):
    return lambda x: (x ** 3).sum() + x[0] * x[1]


def _vec(t, values):
    return t.tensor(values, dtype=t.float64)


# ---- torch.autograd.functional ----------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["elementwise", "matrix", "tuple-inputs", "tuple-outputs", "create-graph",
                                  "unused-input", "constant-output"])
def test_jacobian(form):
    def program(t):
        J = t.autograd.functional.jacobian
        x = _vec(t, [1.0, 2.0, -0.5])
        if form == "elementwise":
            return J(lambda v: v ** 2, x)
        if form == "matrix":
            A = _vec(t, [[1.0, 2.0, 0.0], [3.0, 4.0, -1.0]])
            return J(lambda v: A @ v.sin(), x)
        if form == "tuple-inputs":
            return J(lambda a, b: a * b + b.exp(), (x, x * 2))
        if form == "tuple-outputs":
            return J(lambda v: (v.sum(), v * v), x)
        if form == "create-graph":
            w = _vec(t, [0.5, -1.0, 2.0]).requires_grad_()
            jac = J(lambda v: (v * w).tanh(), x, create_graph=True)
            jac.sum().backward()
            return jac, w.grad
        if form == "unused-input":
            return J(lambda a, b: a * 2, (x, x))
        return J(lambda v: _vec(t, [1.0, 2.0]), x)

    same(program)


@pytest.mark.parametrize("form", ["vector", "tuple", "not-scalar"])
def test_hessian(form):
    def program(t):
        H = t.autograd.functional.hessian
        x = _vec(t, [1.0, 2.0])
        if form == "vector":
            return H(_f(t), x)
        if form == "tuple":
            return H(lambda a, b: (a * a * b).sum(), (x, x + 1))
        return H(lambda v: v * 2, x)

    same(program)


@pytest.mark.parametrize("name", ["vjp", "jvp", "vhp", "hvp"])
def test_products(name):
    def program(t):
        fn = getattr(t.autograd.functional, name)
        x = _vec(t, [1.0, -2.0])
        v = _vec(t, [0.5, 3.0])
        if name in ("vhp", "hvp"):
            return fn(_f(t), x, v)
        return fn(lambda a: a.exp() * a[0], x, v)

    same(program)


# ---- torch.func -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["sin", "second", "third", "sum-of-squares", "argnums", "not-scalar",
                                  "needs-grad-input", "value"])
def test_func_grad(form):
    def program(t):
        grad = t.func.grad
        x = _vec(t, 0.7)
        if form == "sin":
            return grad(t.sin)(x)
        if form == "second":
            return grad(grad(t.sin))(x)
        if form == "third":
            return grad(grad(grad(lambda v: v ** 4)))(x)
        if form == "sum-of-squares":
            return grad(lambda v: (v ** 2).sum())(_vec(t, [1.0, -2.0]))
        if form == "argnums":
            return grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(x, x * 3)
        if form == "not-scalar":
            return grad(lambda v: v * 2)(_vec(t, [1.0, 2.0]))
        if form == "needs-grad-input":
            return grad(lambda v: (v * v).sum())(_vec(t, [1.0, 2.0]).requires_grad_())
        return t.func.grad_and_value(lambda v: v.sin() * v)(x)

    same(program)


def test_func_vjp_and_jvp():
    def program(t):
        x = _vec(t, [1.0, 2.0, 3.0])
        out, fn = t.func.vjp(lambda v: v.sin() * v, x)
        primal, tangent = t.func.jvp(lambda v: v.sin() * v, (x,), (_vec(t, [1.0, 0.0, -1.0]),))
        pair = t.func.jvp(lambda a, b: (a * b, a + b), (x, x * 2), (x, x))
        return out, fn(t.ones_like(out)), primal, tangent, pair

    same(program)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "hessian"])
def test_func_jacobians(transform):
    def program(t):
        fn = getattr(t.func, transform)
        x = _vec(t, [0.5, -1.0, 2.0])
        if transform == "hessian":
            return fn(lambda v: (v.sin() * v).sum())(x)
        return fn(lambda v: v.exp() * v.sum())(x)

    same(program)


def test_func_argument_errors():
    for bad in ("primals", "structure", "argnums"):
        def program(t, bad=bad):
            x = _vec(t, [1.0])
            if bad == "primals":
                return t.func.jvp(t.sin, x, x)
            if bad == "structure":
                return t.func.jvp(t.sin, (x,), (x, x))
            return t.func.grad(t.sin, argnums=3)(x)

        same(program)


# ---- forward_ad -------------------------------------------------------------------------------------------
def test_dual_tensors():
    def program(t):
        fw = t.autograd.forward_ad
        primal, tangent = _vec(t, [1.0, 2.0, 3.0]), _vec(t, [1.0, 0.0, 0.0])
        with fw.dual_level():
            d = fw.make_dual(primal, tangent)
            out = d ** 2 + primal.sin()
            unpacked = fw.unpack_dual(out)
            shown = repr(out)
            inner = [fw.unpack_dual(d.detach()).tangent is None, fw.unpack_dual(d.clone()).tangent,
                     fw.unpack_dual(primal).tangent is None]
            z = t.zeros(3, dtype=t.float64)
            z[0] = d[1] * 5
            written = fw.unpack_dual(z).tangent
        return unpacked.primal, unpacked.tangent, shown, inner, written, fw.unpack_dual(out).tangent is None

    same(program)


@pytest.mark.parametrize("bad", ["no-level", "size", "integer", "nested", "floor-divide"])
def test_dual_tensor_errors(bad):
    def program(t):
        fw = t.autograd.forward_ad
        x = _vec(t, [1.0, 2.0])
        if bad == "no-level":
            return fw.make_dual(x, x)
        with fw.dual_level():
            if bad == "size":
                return fw.make_dual(x, _vec(t, [1.0]))
            if bad == "integer":
                return fw.make_dual(t.tensor([1, 2]), x)
            if bad == "nested":
                with fw.dual_level():
                    return None
            return fw.make_dual(x, x) // 2

    same(program)


def test_forward_steps_are_recorded_with_each_input_s_share():
    with T.recording() as rec:
        fw = engine.autograd.forward_ad
        a = engine.tensor([1.0, 2.0], requires_grad=True)
        b = engine.tensor([3.0, -1.0])
        with fw.dual_level():
            da = fw.make_dual(a, engine.tensor([1.0, 0.0]))
            db = fw.make_dual(b, engine.tensor([0.0, 2.0]))
            (da * db).sum()
    steps = rec.trace.forward_steps
    assert [s.op for s in steps] == ["mul", "sum"]  # make_dual gives the tangents; ops push them on
    mul = steps[0]
    assert mul.formulas == ["ȧ·b", "a·ḃ"]
    assert [x.tolist() for x in mul.shares] == [[3.0, 0.0], [0.0, 4.0]]
    assert mul.tangent.tolist() == [3.0, 4.0] and steps[1].tangent.tolist() == 7.0
    assert mul.node is not None and rec.trace.nodes[mul.node].grad_fn == "MulBackward0"
