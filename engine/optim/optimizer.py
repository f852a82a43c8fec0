"""``Optimizer``: parameter groups, ``zero_grad``, and ``step`` with its trace record.

Subclasses implement ``_update(group)``, which changes each parameter's array in place with
PyTorch's formula, and ``_rule(group)``, the update as text for the page. ``step`` runs the updates
under ``no_grad`` and, when a recorder is active, tells it each parameter's value before and its
gradient (the recorder reads the value after).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .. import arguments as A
from .. import grad_mode
from .. import trace as _trace
from ..naming import torch_path
from ..nn.module import _reset_grad
from ..tensor import Tensor


@torch_path("torch.optim.optimizer")
class Optimizer:
    """Base class of SGD and Adam (``torch.optim.Optimizer``)."""

    # The kind of each hyperparameter (``arguments``' checks), verified in every group before a
    # step reads it: a group is a plain dict the program can change at any time.
    _KINDS: dict = {}

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            f"dicts, but got {params.type()}")
        groups = A.items(params, lambda v: TypeError(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
            f"{A.qualified_name(v)}"))
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if type(groups[0]) not in (dict, OrderedDict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group: ``{"params": [...], "lr": ...}``; missing options come from the defaults."""
        if type(param_group) not in (dict, OrderedDict):
            raise TypeError(f"param_group must be a dict, but got {A.qualified_name(param_group)}")
        group = dict(param_group)
        if "params" not in group:
            raise KeyError("'params'")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else A.items(params, lambda v: TypeError(
            "optimizer parameters need to be organized in ordered collections, but the ordering of tensors "
            f"in sets will change between runs. Please use a list instead (got {A.qualified_name(v)})."))
        names = []
        plain = []
        for p in params:
            if type(p) is tuple and len(p) == 2:  # (name, tensor) pairs from named_parameters()
                names.append(p[0])
                p = p[1]
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{A.qualified_name(p)}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
            plain.append(p)
        group["params"] = plain
        if names:
            group["param_names"] = names
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self._check_group(group)
        taken = set()
        for g in self.param_groups:
            taken.update(g["params"])
        if any(p in taken for p in plain):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def _check_group(self, group: dict) -> None:
        """Every hyperparameter of ``group`` of the kind its optimizer reads (numbers, flags, pairs)."""
        name = type(self).__name__
        for key, kind in self._KINDS.items():
            if key not in group:
                continue
            v = group[key]
            if kind == "real":
                group[key] = A.real(v, name, key)
            elif kind == "flag":
                group[key] = A.flag(v, name, key, strict=False)
            elif kind == "pair":
                if type(v) not in (tuple, list) or len(v) != 2:
                    raise TypeError(A.must(name, key, None, "tuple of 2 floats", v))
                group[key] = (A.real(v[0], name, key), A.real(v[1], name, key))

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the ``.grad`` of every parameter (to None by default, as in torch 2.x)."""

        set_to_none = A.flag(set_to_none, "zero_grad", "set_to_none", 1, strict=False)
        for group in self.param_groups:
            for p in group["params"]:
                _reset_grad(p, set_to_none)
        rec = _trace.ACTIVE
        if rec is not None:
            rec.zero_grad()

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        rec = _trace.ACTIVE
        before = self._snapshot() if rec is not None else None
        with grad_mode.no_grad():
            for group in self.param_groups:
                self._check_group(group)
                self._update(group)
        if rec is not None:
            rec.optimizer_step(type(self).__name__, self.rule(self.param_groups[0]), before)
        return loss

    def _update(self, group: dict) -> None:
        raise NotImplementedError

    def rule(self, group: dict) -> str:
        """The update rule as text, with this group's hyperparameters."""
        if type(group) not in (dict, OrderedDict):
            raise TypeError(A.must("rule", "group", 1, "dict", group))
        group = {**self.defaults, **group}
        self._check_group(group)
        return self._rule(group)

    def _rule(self, group: dict) -> str:
        raise NotImplementedError

    # ---- helpers for subclasses ------------------------------------------------------------------
    @staticmethod
    def _write(p: Tensor, new: np.ndarray) -> None:
        """Store ``new`` into ``p`` in place and bump its version, as ``p.add_`` would."""
        np.copyto(p._data, new, casting="unsafe")
        p._vc[0] += 1

    def _state(self, p: Tensor) -> dict:
        st = self.state.get(p)
        if st is None:
            st = self.state[p] = {}
        return st

    # ---- trace -----------------------------------------------------------------------------------
    def _snapshot(self) -> list:
        """``(parameter, value, grad)`` copies before a step, for the recorder."""
        out = []
        for group in self.param_groups:
            for p in group["params"]:
                grad = None if p._grad is None else np.array(p._grad._data, copy=True)
                out.append((p, np.array(p._data, copy=True), grad))
        return out

    # ---- state and printing ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Per-parameter state by position, and the groups' options (params as positions)."""
        index = {}
        groups = []
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(p, len(index))
                ids.append(index[p])
            groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": ids})
        state = {index[p]: dict(s) for p, s in self.state.items() if p in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Options and per-parameter state from ``state_dict()``'s form (positions for parameters)."""
        if type(state_dict) not in (dict, OrderedDict) or type(state_dict.get("param_groups")) is not list \
                or type(state_dict.get("state")) not in (dict, OrderedDict):
            raise ValueError("loaded state dict must be a dict with 'state' (a dict) and 'param_groups' "
                             "(a list)")
        params = [p for g in self.param_groups for p in g["params"]]
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(type(g) not in (dict, OrderedDict) for g in groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        state = {}
        for i, s in state_dict["state"].items():
            if type(i) is not int or not 0 <= i < len(params) or type(s) not in (dict, OrderedDict) \
                    or not all(isinstance(v, Tensor) for v in s.values()):
                raise ValueError("loaded state dict holds a state that is not tensors by parameter position")
            state[params[i]] = dict(s)
        for g, saved in zip(self.param_groups, groups):
            update = {k: v for k, v in saved.items() if k != "params"}
            trial = {**g, **update}
            self._check_group(trial)
            g.update({k: trial[k] for k in update})
        self.state = state

    def __repr__(self) -> str:
        out = type(self).__name__ + " ("
        for i, g in enumerate(self.param_groups):
            out += f"\nParameter Group {i}"
            for key in sorted(k for k in g if k not in ("params", "param_names")):
                out += f"\n    {key}: {g[key]}"
        return out + "\n)"
