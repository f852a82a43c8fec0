"""The public engine callables and a valid value for each of their arguments, for the walks that
feed them hostile arguments (tests/engine/test_hostile_arguments.py) and smuggled callables
(tests/runner/test_runner_escapes.py). The list comes from the runner's allow-list, so a new
public function is walked without being named here."""

from __future__ import annotations

import inspect
import operator
import types

import engine as torch
from engine.nn.module import Module
from engine.optim.optimizer import Optimizer
from engine.runner.policy import Policy, torch_name
from engine.tensor import Tensor

nn = torch.nn


def _param():
    return nn.Parameter(torch.ones(2, 3))


def valid_value(name: str):
    """A valid value for a parameter named ``name`` (so the hostile one is the only bad argument)."""
    table = {
        "dim": 0, "dim0": 0, "dim1": -1, "start_dim": 0, "end_dim": -1, "in_features": 3, "out_features": 2,
        "n": 2, "m": 2, "steps": 3, "high": 3, "low": 0, "start": 0, "end": 3, "step": 1, "num_classes": 3,
        "size": (2, 3), "shape": (3, 2), "sizes": (2, 3), "dims": (1, 0), "name": "w", "target": "",
        "nonlinearity": "relu", "mode": True, "seed": 1, "fill_value": 0.5, "value": 0.5, "val": 0.5,
        "alpha": 0.5, "exponent": 2.0, "p": 0.5, "mean": 0.0, "std": 1.0, "a": 0.0, "b": 1.0, "gain": 1.0,
        "lr": 0.1, "params": [torch.ones(2, requires_grad=True)], "tensors": [torch.ones(2, 3)] * 2,
        "module": nn.ReLU(), "modules": [nn.ReLU()], "param": _param(), "tensor": torch.ones(2, 3),
        "state_dict": {}, "param_group": {"params": [torch.ones(1, requires_grad=True)]},
        "fn": lambda *a: None, "closure": None, "hook": lambda grad: None, "memo": None, "destination": None,
        "indices": (torch.tensor([0]),), "values": torch.ones(1, 3), "sizes_or_dtype": None,
        "iterable": [2, 3], "mat2": torch.ones(3, 2), "other": torch.ones(2, 3),
        "condition": torch.ones(2, 3) > 0,
        "defaults": {"lr": 0.1}, "optimizer": torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1),
        "outputs": (torch.ones(1, requires_grad=True) * 2).sum(), "inputs": torch.ones(1, requires_grad=True),
        "d": torch.float64, "data": [1.0, 2.0], "arr": torch.ones(2).numpy(), "x": 1.0,
        "keepdim": False, "dtype": torch.float32, "requires_grad": False, "device": None, "generator": None,
        "unbiased": True, "correction": 1, "retain_graph": None, "create_graph": False, "allow_unused": True,
        "materialize_grads": False, "size_average": None, "reduce": None, "reduction": "mean",
        "ignore_index": -100, "label_smoothing": 0.0, "pos_weight": None, "weight": None, "bias": True,
        "min": 0.0, "max": 1.0, "precision": 4, "threshold": 20.0, "edgeitems": 3, "linewidth": 80,
        "profile": "default", "sci_mode": None, "approximate": "none", "inplace": False, "training": True,
        "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0, "momentum": 0.0, "dampening": 0.0,
        "nesterov": False, "maximize": False, "amsgrad": False, "decoupled_weight_decay": False,
        "strict": False, "assign": False, "prefix": "", "recurse": True, "remove_duplicate": True,
        "keep_vars": False, "set_to_none": True, "persistent": True, "negative_slope": 0.01, "beta": 1.0,
        "rounding_mode": None, "accumulate": False, "_stacklevel": 3, "gradient": None, "group": {"lr": 0.1},
        "foreach": None, "fused": None, "differentiable": False, "capturable": False,
        # function transforms, functional, hooks, data, devices, and the runner's math and numpy
        "func": lambda x, *rest: (x * x).sum(), "argnums": 0, "has_aux": False, "strategy": "reverse-mode",
        "outer_jacobian_strategy": "reverse-mode", "vectorize": False, "v": None,
        "primals": (torch.ones(2),), "tangents": (torch.ones(2),),
        "parameters": [torch.ones(2, requires_grad=True)],
        "max_norm": 1.0, "norm_type": 2.0, "clip_value": 1.0, "batch_size": 2, "shuffle": False,
        "drop_last": False, "num_workers": 0, "collate_fn": None, "lengths": [1, 1],
        "dataset": torch.utils.data.TensorDataset(torch.ones(2, 3)), "type": "cpu", "ord": 2, "axis": 0,
        "keepdims": False, "num": 3, "N": 2, "M": 2, "k": 0, "rtol": 1e-5, "atol": 1e-8, "equal_nan": False,
        "decimals": 1, "a_min": 0.0, "a_max": 1.0, "newshape": (3, 2), "object": [1.0, 2.0], "endpoint": True,
        "stop": 3, "fill": 0.0,
        # hooks, legacy constructors, optimizers and ops added since: ``**keywords`` of a factory
        # is walked as ``dtype=`` (see argument_cases)
        "keywords": torch.float32, "prepend": False, "with_kwargs": False, "always_call": False,
        "volatile": False, "centered": False, "lr_decay": 0.0, "initial_accumulator_value": 0.0,
        "descending": False, "stable": False, "largest": True, "sorted": True, "chunks": 2, "diagonal": 0,
        "sparse_grad": False, "length": 1, "split_size_or_sections": 1, "src": torch.ones(2, 3),
    }
    return table.get(name, torch.ones(2, 3))


def _instance(cls):
    """An instance of an nn module or optimizer class to call the methods of."""
    special = {
        nn.Linear: lambda: nn.Linear(3, 2), nn.Sequential: lambda: nn.Sequential(nn.ReLU()),
        nn.ModuleList: lambda: nn.ModuleList([nn.ReLU()]), nn.Parameter: _param,
    }
    if cls in special:
        return special[cls]()
    if issubclass(cls, Optimizer):
        p = torch.ones(2, requires_grad=True)
        return cls([p], {"lr": 0.1}) if cls is Optimizer else cls([p], lr=0.1)
    return cls()


def public_callables() -> list[tuple[str, object]]:
    """(label, make) for each public callable; ``make()`` gives it afresh (bound to a fresh object)."""
    policy = Policy(set(), None)
    out: list[tuple[str, object]] = []
    classes = []
    for mod, attrs in sorted(policy.module_attrs.items(), key=lambda kv: kv[0].__name__):
        for name, v in sorted(attrs.items()):
            if callable(v) and not isinstance(v, types.ModuleType):
                out.append((f"{torch_name(mod)}.{name}", lambda v=v: v))
                if isinstance(v, type) and (issubclass(v, (Module, Optimizer))) and v not in classes:
                    classes.append(v)
    for name in sorted(policy.tensor_attrs):
        if callable(getattr(Tensor, name, None)):
            out.append((f"Tensor.{name}", lambda name=name: getattr(torch.ones(2, 3), name)))
    for cls in classes:
        base = Module if issubclass(cls, Module) else Optimizer
        for name in sorted(dir(cls)):
            own = cls is base or getattr(cls, name, None) is not getattr(base, name, None)
            if name.startswith("_") or not own or not callable(getattr(cls, name, None)):
                continue
            out.append((f"{cls.__name__}.{name}", lambda cls=cls, name=name: getattr(_instance(cls), name)))
    for name in ("no_grad", "enable_grad", "inference_mode"):
        out.append((f"torch.{name}()", lambda name=name: getattr(torch, name)()))
    binary = (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.matmul,
              operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, operator.and_,
              operator.or_, operator.iadd, operator.isub, operator.imul, operator.itruediv)
    for op in binary:
        out.append((f"t {op.__name__} x", lambda op=op: lambda x: op(torch.ones(2, 3), x)))
        out.append((f"x {op.__name__} t", lambda op=op: lambda x: op(x, torch.ones(2, 3))))
    out.append(("t[x]", lambda: lambda x: torch.ones(2, 3)[x]))
    out.append(("x in t", lambda: lambda x: x in torch.ones(2, 3)))
    out.append(("t[x] = 1", lambda: lambda x: operator.setitem(torch.ones(2, 3), x, 1.0)))
    out.append(("t[0] = x", lambda: lambda x: operator.setitem(torch.ones(2, 3), 0, x)))
    out.append(("t[:] = x", lambda: lambda x: operator.setitem(torch.ones(2, 3), slice(None), x)))
    out.append(("seq[x]", lambda: lambda x: nn.Sequential(nn.ReLU())[x]))
    for attr in ("grad", "data", "requires_grad"):
        out.append((f"t.{attr} = x", lambda attr=attr: lambda x: setattr(torch.ones(2, 3), attr, x)))
    out.append(("module.attr = x", lambda: lambda x: setattr(nn.Linear(3, 2), "weight", x)))
    return out


def argument_cases(f) -> list[tuple[str, object]]:
    """(position, arrange) for each argument position of ``f``: ``arrange(x)`` gives the
    ``(args, kwargs)`` of a call with ``x`` in that position and valid values for the other
    required arguments."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return [("0", lambda x: ((x,), {}))]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in params if p.kind in positional and p.default is p.empty]
    cases = []
    for p in params:
        others = [valid_value(q.name) for q in required if q is not p]
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            cases.append((f"*{p.name}", lambda x, o=others: ((*o, x), {})))
            cases.append((f"*{p.name}[1]", lambda x, o=others: ((*o, 2, x), {})))
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            cases.append((f"**{p.name}", lambda x, o=others: (tuple(o), {"dtype": x})))
        elif p in required:
            at = required.index(p)
            cases.append((p.name, lambda x, o=others, at=at: ((*o[:at], x, *o[at:]), {})))
        elif p.kind is inspect.Parameter.POSITIONAL_ONLY:
            continue
        else:
            cases.append((p.name, lambda x, o=others, n=p.name: (tuple(o), {n: x})))
    return cases


def is_engine_callable(f) -> bool:
    """Whether ``f`` is engine code a program can call (the test's own operator lambdas are not)."""
    func = getattr(f, "__func__", f)
    module = getattr(func, "__module__", "") or getattr(type(func), "__module__", "")
    return isinstance(module, str) and module.startswith("engine")
