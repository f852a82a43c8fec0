"""Run one program on the engine and on PyTorch and compare everything it returns: tensors by value
(float64, 1e-10 relative), dtype, shape and grad_fn name; other values exactly; exceptions by type
and message; warnings by text. Shared by the tests of the course features."""

from __future__ import annotations

import warnings

import numpy as np
import torch

import engine


def _plain(x):
    """A comparable form of what a program returned."""
    if isinstance(x, (engine.Tensor, torch.Tensor)):
        fn = x.grad_fn.name() if x.grad_fn is not None else None
        return ("tensor", tuple(x.shape), str(x.dtype).split(".")[-1], fn, x.requires_grad,
                np.asarray(x.detach().tolist(), dtype=np.float64))
    if isinstance(x, (list, tuple)):
        return type(x).__name__ if type(x) in (list, tuple) else "tuple", [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _equal(a, b, where="result") -> None:
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b and b[0] == "tensor", f"{where}: {a} vs {b}"
        assert a[1:5] == b[1:5], f"{where}: shape, dtype, grad_fn, requires_grad {a[1:5]} != torch {b[1:5]}"
        np.testing.assert_allclose(a[5], b[5], rtol=1e-10, atol=1e-12, err_msg=where)
        return
    if isinstance(a, tuple) and len(a) == 2 and isinstance(a[1], list):
        assert isinstance(b, tuple) and len(b) == 2 and len(a[1]) == len(b[1]), f"{where}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            _equal(x, y, f"{where}[{i}]")
        return
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: {a} vs {b}"
        for k in a:
            _equal(a[k], b[k], f"{where}[{k!r}]")
        return
    if isinstance(a, float) and isinstance(b, float):
        assert np.isclose(a, b, rtol=1e-10, atol=1e-12), f"{where}: {a} != torch {b}"
        return
    assert a == b, f"{where}: {a!r} != torch {b!r}"


def outcome(lib, program):
    """("ok", what it returned, warnings) or ("error", exception type name, message)."""
    # PyTorch warns some things once per process; a run is a fresh process, so always warn here
    always = lib is torch and not torch.is_warn_always_enabled()
    if always:
        torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = program(lib)
        # each distinct warning once, as a run shows them (PyTorch's C++ warnings warn once, too)
        texts = list(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, UserWarning)))
        return ("ok", _plain(value), texts)
    except Exception as exc:  # noqa: BLE001 - the point is to compare whatever was raised
        return ("error", type(exc).__name__, str(exc))
    finally:
        if always:
            torch.set_warn_always(False)


def same(program):
    """Run ``program(lib)`` with the engine and with torch; assert the outcomes agree."""
    ours, theirs = outcome(engine, program), outcome(torch, program)
    assert ours[0] == theirs[0], f"engine: {ours}\ntorch: {theirs}"
    if ours[0] == "error":
        assert ours == theirs
    else:
        _equal(ours[1], theirs[1])
        assert ours[2] == theirs[2], f"warnings: {ours[2]} != torch {theirs[2]}"
    return ours


def leaf(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float64, requires_grad=True)
