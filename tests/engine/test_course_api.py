"""The rest of the PyTorch that courses use, on the engine and on PyTorch: legacy constructors,
devices, data loaders, comparisons, products, contiguity and views, rounding divisions, dtype
names in errors, and PyTorch's warnings."""

from __future__ import annotations

import pytest
from course_oracle import leaf, same


def test_variable_is_a_tensor():
    def program(t):
        from_autograd = t.autograd.Variable
        x = from_autograd(t.ones(2, 2, dtype=t.float64), requires_grad=True)
        y = (x + 2) * 3
        y.mean().backward()
        plain = from_autograd(t.tensor([1.0, 2.0]))
        return x, x.grad, isinstance(x, from_autograd), isinstance(plain, from_autograd), plain.requires_grad

    same(program)


@pytest.mark.parametrize("args", ["data", "nested", "shape", "size", "empty", "bools", "string"])
def test_legacy_tensor_constructor(args):
    def program(t):
        if args == "data":
            return t.Tensor([1, 2, 3])
        if args == "nested":
            return t.Tensor([[1, 2], [3, 4]])
        if args == "shape":
            return tuple(t.Tensor(2, 3).shape), str(t.Tensor(2, 3).dtype)
        if args == "size":
            return tuple(t.Tensor(t.Size([4])).shape)
        if args == "empty":
            return t.Tensor()
        if args == "bools":
            return t.Tensor([True, False])
        return t.Tensor("a")

    same(program)


@pytest.mark.parametrize("use", ["device", "index", "to-cpu", "to-cuda", "cuda", "factory", "module-cuda",
                                 "is-available", "unknown", "equal", "module-to"])
def test_devices(use):
    def program(t):
        x = t.ones(2)
        if use == "device":
            d = t.device("cuda" if t.cuda.is_available() else "cpu")
            return str(d), repr(d), d.type, str(x.device), repr(x.device), x.is_cuda
        if use == "index":
            return repr(t.device("cuda:1")), repr(t.device("cuda", 0)), t.device("cuda:1").index
        if use == "to-cpu":
            return x.to("cpu"), x.to(t.device("cpu"), t.float64), x.cpu(), x.to(device="cpu", dtype=t.float64)
        if use == "to-cuda":
            return x.to("cuda")
        if use == "cuda":
            return x.cuda()
        if use == "factory":
            return t.zeros(2, device="cuda")
        if use == "module-cuda":
            return t.nn.Linear(2, 1).cuda()
        if use == "is-available":
            return t.cuda.is_available(), t.cuda.device_count()
        if use == "unknown":
            return t.device("gpu")
        if use == "equal":
            return t.device("cpu") == x.device, t.device("cpu") == "cpu"
        return tuple(t.nn.Linear(2, 1).to("cpu").weight.shape)

    same(program)


@pytest.mark.parametrize("form", ["batches", "drop-last", "len", "item", "tensor", "size-mismatch"])
def test_data_loader(form):
    def program(t):
        data = t.utils.data
        X = t.arange(10.0).reshape(5, 2)
        y = t.tensor([0, 1, 0, 1, 1])
        ds = data.TensorDataset(X, y)
        if form == "batches":
            return [list(b) for b in data.DataLoader(ds, batch_size=2)]
        if form == "drop-last":
            return [tuple(xb.shape) for xb, _ in data.DataLoader(ds, batch_size=2, drop_last=True)]
        if form == "len":
            return len(ds), len(data.DataLoader(ds, batch_size=2)), len(data.DataLoader(ds, batch_size=2,
                                                                                       drop_last=True))
        if form == "item":
            return list(ds[1])
        if form == "tensor":
            return list(data.DataLoader(X, batch_size=3))
        return data.TensorDataset(X, t.ones(4))

    same(program)


def test_shuffled_batches_cover_the_data_once_per_epoch():
    import engine as t

    X = t.arange(8.0)
    loader = t.utils.data.DataLoader(t.utils.data.TensorDataset(X), batch_size=3, shuffle=True)
    for _ in range(2):
        seen = sorted(v for (xb,) in loader for v in xb.tolist())
        assert seen == X.tolist()
    assert [len(xb) for (xb,) in loader] == [3, 3, 2]


@pytest.mark.parametrize("form", ["allclose", "allclose-tol", "allclose-nan", "allclose-dtype",
                                  "allclose-shape", "isclose", "equal", "equal-shape", "all-any", "all-dim",
                                  "any-uint8", "method"])
def test_comparisons(form):
    def program(t):
        a = t.tensor([1.0, 2.0, 3.0])
        if form == "allclose":
            return t.allclose(a, a + 1e-9), t.allclose(a, a + 0.1)
        if form == "allclose-tol":
            return t.allclose(a, a + 0.1, atol=0.2), t.allclose(a, a * 1.01, rtol=0.02)
        if form == "allclose-nan":
            n = t.tensor([1.0, float("nan")])
            return t.allclose(n, n), t.allclose(n, n, equal_nan=True)
        if form == "allclose-dtype":
            return t.allclose(a, a.double())
        if form == "allclose-shape":
            return t.allclose(a, t.ones(2))
        if form == "isclose":
            return t.isclose(a, t.tensor([1.0, 2.1, 3.0]))
        if form == "equal":
            return t.equal(a, a.clone()), t.equal(a, a + 1e-9)
        if form == "equal-shape":
            return t.equal(a, t.ones(2))
        if form == "all-any":
            return (a > 0).all(), (a > 2).any(), t.all(a < 3), t.any(a < 0), t.tensor([]).all()
        if form == "all-dim":
            m = t.tensor([[1.0, 0.0], [2.0, 3.0]])
            return m.all(dim=1), m.any(1, keepdim=True), t.all(m, dim=0)
        if form == "any-uint8":
            return t.any(t.tensor([1, 0], dtype=t.uint8))
        return a.allclose(a), a.equal(a), a.isclose(a)

    same(program)


@pytest.mark.parametrize("form", ["dot", "dot-2d", "dot-size", "dot-dtype", "bmm", "bmm-3d", "bmm-shape"])
def test_dot_and_bmm(form):
    def program(t):
        u, v = leaf(t, [1.0, 2.0, 3.0]), t.tensor([4.0, -5.0, 6.0], dtype=t.float64)
        if form == "dot":
            d = t.dot(u, v)
            d.backward()
            return d, u.grad, u.dot(v)
        if form == "dot-2d":
            return t.dot(t.ones(2, 2), t.ones(2))
        if form == "dot-size":
            return t.dot(t.ones(3), t.ones(2))
        if form == "dot-dtype":
            return t.dot(t.ones(3), t.ones(3, dtype=t.float64))
        if form == "bmm":
            A = leaf(t, [[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]])
            out = t.bmm(A, A.transpose(1, 2))
            out.sum().backward()
            return out, A.grad
        if form == "bmm-3d":
            return t.bmm(t.ones(2, 2), t.ones(2, 2, 2))
        return t.bmm(t.ones(2, 2, 3), t.ones(2, 2, 2))

    same(program)


@pytest.mark.parametrize("form", ["flags", "reshape", "contiguous", "view-error", "view-ok", "clone",
                                  "expand", "flatten", "elementwise"])
def test_contiguity_views_and_reshape(form):
    def program(t):
        x = leaf(t, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
        m = x.view(2, 3)
        tr = m.t()
        if form == "flags":
            return [m.is_contiguous(), tr.is_contiguous(), m[:, 1].is_contiguous(), m[0].is_contiguous(),
                    m[:, ::2].is_contiguous(), m.unsqueeze(0).is_contiguous()]
        if form == "reshape":
            r = tr.reshape(6)
            r.sum().backward()
            return r, r.grad_fn.name(), r.grad_fn.next_functions[0][0].name(), x.grad
        if form == "contiguous":
            c = tr.contiguous()
            return c, c.is_contiguous(), c.grad_fn.name(), m.contiguous() is m, c.view(-1)
        if form == "view-error":
            return tr.view(-1)
        if form == "view-ok":
            return tr.view(3, 2), tr.reshape(3, 2), m[:, 1:].reshape(4)
        if form == "clone":
            return tr.clone().is_contiguous(), tr.clone().t().is_contiguous()
        if form == "expand":
            e = x[:2].view(2, 1).expand(2, 3)
            return e.is_contiguous(), e.reshape(6).grad_fn.name()
        if form == "flatten":
            return tr.flatten().grad_fn.name(), m.flatten().grad_fn.name()
        return (tr * 2).is_contiguous(), (tr * 2).t().is_contiguous()

    same(program)


@pytest.mark.parametrize("form", ["floor", "floor-int", "floor-zero", "rounding-modes", "rounding-bad",
                                  "no-derivative", "remainder", "ifloordiv"])
def test_rounding_divisions(form):
    def program(t):
        x = leaf(t, [1.5, -2.5, 3.0])
        if form == "floor":
            return x // 2, 7 // x, t.floor_divide(x, 0.7)
        if form == "floor-int":
            return t.arange(7) // 2, t.tensor([7, -7]) // 2.5, t.tensor([7, -7], dtype=t.int32) // t.tensor(2)
        if form == "floor-zero":
            return t.tensor([1, 2]) // 0
        if form == "rounding-modes":
            a, b = t.div(x, 2, rounding_mode="floor"), t.div(x, 2, rounding_mode="trunc")
            (a + b).sum().backward()
            return a, b, x.grad, t.div(t.tensor([7, -7]), 2, rounding_mode="trunc")
        if form == "rounding-bad":
            return t.div(x, 2, rounding_mode="round")
        if form == "no-derivative":
            (x // 2).sum().backward()
        if form == "remainder":
            r = x % 2
            r.sum().backward()
            other = t.tensor([2.0, 3.0, -2.0], dtype=t.float64)
            return r, x.grad, t.tensor([7, -7]) % 3, t.remainder(x, other)
        y = x.detach().clone()
        y //= 2
        return y

    same(program)


@pytest.mark.parametrize("form", ["mean", "where", "inplace", "var", "norm"])
def test_dtype_names_in_errors(form):
    def program(t):
        i = t.tensor([1, 2, 3])
        if form == "mean":
            return i.mean()
        if form == "where":
            return t.where(t.ones(3), i, i)
        if form == "inplace":
            return i.add_(0.5)
        if form == "var":
            return i.var()
        return i.norm()

    same(program)


@pytest.mark.parametrize("form", ["float", "item", "copy-construct", "detached"])
def test_warnings(form):
    def program(t):
        x = t.tensor(1.5, requires_grad=True)
        if form == "float":
            return float(x)
        if form == "item":
            return x.item()
        if form == "copy-construct":
            return t.tensor(x)
        return float(x.detach())

    same(program)


@pytest.mark.parametrize("name", ["round", "floor", "ceil", "trunc", "sign", "square", "rsqrt", "log1p",
                                  "expm1", "log2", "log10", "tan", "sinh", "cosh", "atan", "asin", "acos",
                                  "erf"])
def test_functions_of_one_number(name):
    def program(t):
        x = leaf(t, [0.3, -0.45, 0.7])
        arg = x.abs() + 0.1 if name in ("rsqrt", "log2", "log10") else x
        y = getattr(t, name)(arg)
        y.sum().backward()
        stepwise = name in ("round", "floor", "ceil", "trunc", "sign")
        ints = getattr(t, name)(t.tensor([2, -3])) if stepwise else None
        return y, x.grad, ints, getattr(arg, name)()

    same(program)


def test_round_to_decimals():
    same(lambda t: (t.round(t.tensor([1.234, -5.678], dtype=t.float64), decimals=1),
                    t.round(leaf(t, [1.25]), decimals=1).grad_fn.name()))
