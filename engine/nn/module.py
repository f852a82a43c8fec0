"""``nn.Module``: parameters and submodules registered by attribute assignment.

Calling a module runs ``forward``; with a trace recorder active the call goes through
``engine.nn.tracing`` (module paths and parameter names for the trace). With recording off the
call is ``forward(*args)`` after one global read.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np

from .. import arguments as A
from .. import trace as _trace
from ..device import NO_CUDA, check, is_device
from ..dtypes import dtype as _dtype
from ..dtypes import float32, float64
from ..naming import torch_path
from ..tensor import Tensor
from .module_hooks import ModuleHooks, call_with_hooks, has_hooks
from .parameter import Parameter
from .tracing import name_module, traced_call  # noqa: F401  (the runner imports name_module from here)

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def _incompatible_repr(self) -> str:
    if not self.missing_keys and not self.unexpected_keys:
        return "<All keys matched successfully>"
    return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


IncompatibleKeys.__repr__ = _incompatible_repr


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


@torch_path("torch.nn.modules.module")
class Module(ModuleHooks):
    """Base class of every layer and model (``class Net(nn.Module)``)."""

    training: bool
    _gv_label: str | None = None

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    # ---- registration ----------------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        d = self.__dict__
        d.pop(name, None)
        for key in ("_parameters", "_modules", "_buffers"):
            d[key].pop(name, None)

    def __getattr__(self, name: str):
        # Registered names never start with "_", so no special name (``__array_interface__``,
        # ``__reduce_ex__``, ...) that NumPy, copy or pickle look up can ever be served from here.
        if name[:1] != "_":
            d = self.__dict__
            for key in ("_parameters", "_buffers", "_modules"):
                store = d.get(key)
                if store is not None and name in store:
                    return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if name in d.get(key, ()):
                del d[key][name]
                return
        object.__delattr__(self, name)

    def _check_name(self, kind: str, store: str, name) -> None:
        """PyTorch's checks of a name to register, plus one of gradviz: no leading underscore (a
        registered name is served as an attribute, and names starting with "_" are the object's
        own and Python's)."""
        if store not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if type(name) is not str:
            raise TypeError(f"{kind} name should be a string. Got {A.qualified_name(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}' if kind == "module"
                           else f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if name.startswith("_"):
            raise KeyError(f"{kind} name can't start with '_' in gradviz (such names are private): {name}")
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None) under ``name``: a ``Parameter`` or None, as in PyTorch."""
        self._check_name("parameter", "_parameters", name)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{A.qualified_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param._grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                             f"be created explicitly. To express '{name}' as a function of another Tensor, "
                             "compute the value in the forward() method.")
        self._forget(name)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (saved in ``state_dict``): a ``Tensor`` or
        None, as in PyTorch."""
        self._check_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{A.qualified_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        A.flag(persistent, "register_buffer", "persistent", strict=False)
        self._forget(name)
        self._buffers[name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under ``name``: a ``Module`` or None, as in PyTorch."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{A.qualified_name(module)} is not a Module subclass")
        self._check_name("module", "_modules", name)
        self._forget(name)
        self._modules[name] = module

    register_module = add_module

    # ---- traversal (iterative, registration order) -----------------------------------------------
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """(path, module) for this module and every descendant, depth first, in registration order."""
        if memo is not None and type(memo) is not set:
            raise TypeError(A.must("named_modules", "memo", 1, "set", memo))
        prefix = A.string(prefix, "named_modules", "prefix", 2)
        remove_duplicate = A.flag(remove_duplicate, "named_modules", "remove_duplicate", 3, strict=False)
        return self._named_modules(set() if memo is None else memo, prefix, remove_duplicate)

    def _named_modules(self, seen: set, prefix: str, remove_duplicate: bool):
        stack = [(prefix, self)]
        while stack:
            path, m = stack.pop()
            if remove_duplicate:
                if m in seen:
                    continue
                seen.add(m)
            yield path, m
            kids = [(f"{path}.{n}" if path else n, c) for n, c in m._modules.items() if c is not None]
            stack.extend(reversed(kids))

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        fn = "named_parameters" if store == "_parameters" else "named_buffers"
        prefix = A.string(prefix, fn, "prefix", 1)
        recurse = A.flag(recurse, fn, "recurse", 2, strict=False)
        remove_duplicate = A.flag(remove_duplicate, fn, "remove_duplicate", 3, strict=False)
        return self._members(store, prefix, recurse, remove_duplicate)

    def _members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for path, m in mods:
            for name, t in getattr(m, store).items():
                if t is None or (remove_duplicate and t in seen):
                    continue
                seen.add(t)
                yield (f"{path}.{name}" if path else name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """(qualified name, parameter) pairs, e.g. ("fc1.weight", Parameter)."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        """The descendant at a dotted path, e.g. ``"net.0"``."""
        target = A.string(target, "get_submodule", "target", 1)
        m = self
        for part in target.split(".") if target else []:
            if part not in m._modules:
                raise AttributeError(f"{type(m).__name__} has no attribute `{part}`")
            m = m._modules[part]
        return m

    def apply(self, fn) -> Module:
        """Call ``fn`` on every descendant (children first) and on this module."""
        order = [m for _, m in self.named_modules()]
        for m in reversed(order):
            fn(m)
        return self

    # ---- modes and gradients ---------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and every descendant."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad`` (to None by default, as in torch 2.x)."""
        set_to_none = A.flag(set_to_none, "zero_grad", "set_to_none", 1, strict=False)
        for p in self.parameters():
            _reset_grad(p, set_to_none)
        rec = _trace.ACTIVE
        if rec is not None:
            rec.zero_grad()

    # ---- dtypes ----------------------------------------------------------------------------------
    def to(self, *args, **kwargs) -> Module:
        """Convert parameters and buffers to a floating dtype; a device must be the CPU (a GPU fails as
        in a PyTorch without GPUs)."""

        target = A.dtype(kwargs.get("dtype"), "to")
        if "device" in kwargs:
            check(kwargs["device"])
        for a in args:
            if type(a) is _dtype:
                target = a
            elif is_device(a):
                check(a)
        if target is None:
            return self
        if not target.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={target}")
        for t in list(self.parameters()) + list(self.buffers()):
            if t.dtype.is_floating_point and t._data.dtype != target.np:
                t._data = t._data.astype(target.np)
                if t._grad is not None:
                    t._grad._data = t._grad._data.astype(target.np)
        return self

    def double(self) -> Module:
        return self.to(float64)

    def float(self) -> Module:
        return self.to(float32)

    def cpu(self) -> Module:
        return self

    def cuda(self, device=None) -> Module:
        """Fails as in a PyTorch without GPUs."""

        raise AssertionError(NO_CUDA)

    # ---- state -----------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Parameters and buffers by qualified name (detached, sharing storage)."""
        if destination is not None and type(destination) not in (dict, OrderedDict):
            raise TypeError(A.must("state_dict", "destination", 1, "dict", destination))
        prefix = A.string(prefix, "state_dict", "prefix", 2)
        keep_vars = A.flag(keep_vars, "state_dict", "keep_vars", 3, strict=False)
        out = OrderedDict() if destination is None else destination
        for path, m in self.named_modules(prefix=prefix.rstrip(".")):
            for store in ("_parameters", "_buffers"):
                for name, t in getattr(m, store).items():
                    if t is not None:
                        out[f"{path}.{name}" if path else name] = t if keep_vars else t.detach()
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy tensors from ``state_dict`` (a dict) into this module's parameters and buffers."""
        if type(state_dict) not in (dict, OrderedDict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        strict = A.flag(strict, "load_state_dict", "strict", 2, strict=False)
        A.flag(assign, "load_state_dict", "assign", 3, strict=False)
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for k, t in own.items():
            if k in state_dict:
                src = state_dict[k]
                if not isinstance(src, Tensor):
                    kind = "parameter" if isinstance(t, Parameter) else "buffer"
                    errors.append(f'While copying the {kind} named "{k}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(src)}")
                    continue
                src_arr = src._data
                if src_arr.shape != t._data.shape:
                    errors.append(f"size mismatch for {k}: copying a param with shape "
                                  f"{Tensor._make(src_arr).shape} from checkpoint, the shape in current "
                                  f"model is {t.shape}.")
        if strict:
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(1 if missing else 0, f"Unexpected key(s) in state_dict: {keys}. ")
        if errors:
            head = f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
            raise RuntimeError(head + "\n\t".join(errors))
        for k, t in own.items():
            if k in state_dict:
                np.copyto(t._data, state_dict[k]._data, casting="unsafe")
                t._vc[0] += 1
        return IncompatibleKeys(missing, unexpected)

    # ---- calling ---------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        name = type(self).__name__
        raise NotImplementedError(f'Module [{name}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        rec = _trace.ACTIVE
        if has_hooks(self):
            return call_with_hooks(self, lambda a, k: self._run_forward(_trace.ACTIVE, a, k), args, kwargs)
        return self._run_forward(rec, args, kwargs)

    def _run_forward(self, rec, args, kwargs):
        if rec is None:
            return self.forward(*args, **kwargs)
        return traced_call(self, rec, args, kwargs)

    # ---- printing --------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (layers override it)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(m), 2) for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self):
        d = self.__dict__
        own = set(d["_parameters"]) | set(d["_modules"]) | set(d["_buffers"])
        return sorted(set(object.__dir__(self)) | own)


def _reset_grad(p: Tensor, set_to_none: bool) -> None:
    """``zero_grad`` for one tensor: drop ``.grad`` or zero it in place."""
    g = p._grad
    if g is None:
        return
    if set_to_none:
        p._grad = None
    else:
        g._grad_fn = None
        g._requires_grad = False
        g._data[...] = 0
        g._vc[0] += 1
