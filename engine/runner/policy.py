"""What user code may touch: an explicit allow-list, resolved from the live engine modules.

Three questions, each answered here and nowhere else:
- which names a ``torch`` module exposes (``module_attr``): the public names of a fixed set of
  engine modules whose values are engine functions, engine classes, dtypes, allowed submodules or
  plain constants (the tables built from them: engine/runner/torch_modules.py);
- which attributes an object exposes (``get_attr`` / ``set_attr``), by the object's type;
- what may be called (``check_call``): user functions, the safe builtins, engine functions,
  engine classes and their instances, and methods of allowed receivers.
Names starting with an underscore are never reachable (except ``super().__init__``).
"""

from __future__ import annotations

import types

import numpy as np

from .. import autograd as _autograd
from .. import dtypes
from .. import nn as _nn
from ..autograd.forward_ad import UnpackedDualTensor
from ..device import device
from ..errors import LimitError, not_supported
from ..function import AccumulateGrad, Node
from ..ops.reduce import _ReturnType
from ..optim import Optimizer
from ..tensor import Size, Tensor
from .errors import ForbiddenError
from .functions import Callback, InitMethod, SuperMethod, SuperProxy, UserFunction
from .libraries import CALLABLES as LIBRARY_CALLABLES
from .libraries import library_has
from .torch_modules import DENY_ATTRS, TORCH_MODULES, engine_tables, is_engine_object, torch_name
from .torch_names import CLASSES as TORCH_CLASS_NAMES
from .torch_names import MODULES as TORCH_NAMES
from .unsupported import Unsupported

STR_ATTRS = frozenset({
    "capitalize", "casefold", "count", "endswith", "find", "index", "isalnum", "isalpha", "isdecimal",
    "isdigit", "isidentifier", "islower", "isnumeric", "isspace", "istitle", "isupper", "lower", "lstrip",
    "partition", "removeprefix", "removesuffix", "rfind", "rindex", "rpartition", "rsplit", "rstrip",
    "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper",
})
STR_CHECKED = frozenset({"format", "join", "replace", "ljust", "rjust", "center", "zfill"})
LIST_ATTRS = frozenset({"append", "clear", "copy", "count", "index", "insert", "pop", "remove", "reverse"})
LIST_CHECKED = frozenset({"extend", "sort"})  # sort(key=f) calls f: the checked one calls it in the policy
TUPLE_ATTRS = frozenset({"count", "index"})
DICT_ATTRS = frozenset({"clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault", "values"})
DICT_CHECKED = frozenset({"update"})
SET_ATTRS = frozenset({"add", "clear", "copy", "discard", "pop", "remove"})
INT_ATTRS = frozenset({"real", "imag", "numerator", "denominator", "bit_length", "conjugate"})
FLOAT_ATTRS = frozenset({"real", "imag", "is_integer", "conjugate", "as_integer_ratio"})
RANGE_ATTRS = frozenset({"start", "stop", "step"})
NDARRAY_ATTRS = frozenset({
    "shape", "ndim", "size", "dtype", "T", "tolist", "item", "sum", "mean", "max", "min", "argmax",
    "argmin", "std", "var", "reshape", "flatten", "copy", "transpose", "round", "cumsum", "prod", "any",
    "all", "squeeze",
})
NPSCALAR_ATTRS = frozenset({"item", "tolist", "dtype", "shape", "ndim", "real", "imag"})
NPDTYPE_ATTRS = frozenset({"name", "kind", "itemsize"})
NODE_ATTRS = frozenset({"name", "next_functions"})
ACC_ATTRS = frozenset({"name", "next_functions", "variable"})
DTYPE_ATTRS = frozenset({"is_floating_point", "itemsize"})
SIZE_ATTRS = frozenset({"numel", "index", "count"})
EXC_ATTRS = frozenset({"args"})
TENSOR_SETTABLE = frozenset({"grad", "requires_grad", "data"})
# The engine's named tuples: max/min along a dim, and forward mode's unpacked dual tensor.
_NAMED_TUPLES = ((_ReturnType, frozenset({"values", "indices", "count", "index"})),
                 (UnpackedDualTensor, frozenset({"primal", "tangent", "count", "index"})))
# Engine objects every run shares (``torch.float32``, a tensor's ``.device``), immutable as in PyTorch.
IMMUTABLE = (dtypes.dtype, device, Size)
# Names starting with an underscore that a program may read: the name of a class, function or
# module (``type(acc).__name__``) and an object's class (``m.__class__``, what ``type(m)`` gives).
READABLE_DUNDERS = frozenset({"__name__", "__class__"})
# A tensor's read-only facts PyTorch spells with one underscore: its version counter and, for a
# view, the tensor whose storage it shares (the lessons on in-place changes print both).
READABLE_PRIVATE = frozenset({"_version", "_base"})

# Receivers whose engine methods user code may call whatever their type's other bases.
_ENGINE_RECEIVERS = (Tensor, Node, AccumulateGrad)
_ABSENT = object()

# Receivers whose builtin methods user code may call (a method of anything else is refused).
_BUILTIN_RECEIVERS = ((str, STR_ATTRS), (list, LIST_ATTRS), (tuple, TUPLE_ATTRS), (dict, DICT_ATTRS),
                      (set, SET_ATTRS), (float, FLOAT_ATTRS), (int, INT_ATTRS),
                      (np.ndarray, NDARRAY_ATTRS), (np.generic, NPSCALAR_ATTRS))


class Policy:
    """The allow-list for one run: the engine's tables (built once) and the run's own classes."""

    def __init__(self, user_classes: set, checked_methods):
        (self.modules, self._module_set, self.module_attrs, self.engine_classes,
         self.tensor_attrs) = engine_tables()
        self.user_classes = user_classes
        self.checked = checked_methods  # (obj, name) -> checked wrapper for STR/LIST/DICT_CHECKED
        self.builtin_callables: set = set()
        self.callable_types: tuple = (UserFunction, SuperMethod, InitMethod)
        self.exception_classes: set = set()

        self.module_base = getattr(_nn, "Module", None)
        self.function_base = getattr(_autograd, "Function", None)

        self.optimizer_base = Optimizer
        # Answers that depend only on what cannot change during the run, worked out once: whether
        # instances of a type are the engine's or the program's (by type: a class's MRO is fixed;
        # the program's answers are asked again when it defines a class), plain functions'
        # answers (by the function itself) and the engine methods allowed on receivers of
        # a type (by the function and the receiver's type).
        self._engine_types: dict[type, bool] = {}
        self._user_types: dict[type, bool] = {}
        self._user_count = 0
        self._functions: dict = {}
        self._engine_methods: set = set()

    # ---- modules ---------------------------------------------------------------------------------
    def module_for(self, torch_path: str):
        """The engine module standing for ``torch_path`` (e.g. "torch.nn"), or None."""
        return self.modules.get(torch_path)

    def module_attr(self, mod, name: str):
        allowed = self.module_attrs.get(mod, {})
        if name in allowed:
            return allowed[name]
        shown = torch_name(mod)
        if library_has(mod, name) or name in TORCH_NAMES.get(shown, ()):
            raise not_supported(f"{shown}.{name}")  # PyTorch (or the library) has it; gradviz does not
        raise AttributeError(f"module '{shown}' has no attribute '{name}'")

    # ---- kinds of objects ------------------------------------------------------------------------
    def is_user_instance(self, obj) -> bool:
        kind = type(obj)
        if len(self.user_classes) != self._user_count:  # the program defined a class since
            self._user_types.clear()
            self._user_count = len(self.user_classes)
        known = self._user_types.get(kind)
        if known is None:
            known = self._user_types[kind] = any(c in self.user_classes for c in kind.__mro__)
        return known

    def is_engine_instance(self, obj) -> bool:
        if isinstance(obj, (type, types.ModuleType, dtypes.dtype)):
            return False
        kind = type(obj)
        known = self._engine_types.get(kind)
        if known is None:
            known = self._engine_types[kind] = any(c in self.engine_classes for c in kind.__mro__)
        return known

    # ---- attributes ------------------------------------------------------------------------------
    def get_attr(self, obj, name: str):
        """``obj.name`` for user code, or ForbiddenError. A callable the program stored as an
        attribute is kept as a ``Callback`` (for engine code); the program reads back what it stored."""
        # The two commonest reads first, with the answers ``_get_attr`` gives them: a name a torch
        # module offers (its table holds no private or denied name) and a Tensor attribute.
        if type(obj) is types.ModuleType:
            allowed = self.module_attrs.get(obj)
            if allowed is not None and name not in DENY_ATTRS:
                value = allowed.get(name, _ABSENT)
                if value is not _ABSENT:
                    return value.fn if type(value) is Callback else value
        elif isinstance(obj, Tensor) and name in self.tensor_attrs:
            value = getattr(obj, name)
            return value.fn if type(value) is Callback else value
        value = self._get_attr(obj, name)
        return value.fn if type(value) is Callback else value

    def _get_attr(self, obj, name: str):
        if isinstance(obj, SuperProxy):
            return obj.get(name)
        if name in READABLE_DUNDERS:
            return self._dunder(obj, name)
        if name in READABLE_PRIVATE and isinstance(obj, Tensor):
            return getattr(obj, name)
        if name == "__init__" and isinstance(obj, type) and (
                obj in self.user_classes or (self.module_base is not None and obj in self.engine_classes
                                             and issubclass(obj, self.module_base))):
            return InitMethod(obj)  # Base.__init__(self, ...), the older spelling of super()
        if type(obj) is Unsupported:
            raise obj.refuse()
        if name.startswith("_") or name in DENY_ATTRS:
            raise ForbiddenError(f"attribute '{name}' is not available in gradviz")
        if isinstance(obj, types.ModuleType):
            return self.module_attr(obj, name)
        if isinstance(obj, Tensor):
            if name in self.tensor_attrs:
                return getattr(obj, name)
            return self._refuse(obj, name)
        if isinstance(obj, type):
            if obj in self.user_classes:
                return getattr(obj, name)
            return self._refuse(obj, name)
        if self.is_user_instance(obj) or self.is_engine_instance(obj):
            try:
                return getattr(obj, name)
            except AttributeError:
                self.refuse_torch_name(obj, name)  # "not supported in gradviz" for a name PyTorch has
                raise
        allowed = self._builtin_attrs(obj)
        if allowed is not None and name in allowed:
            return getattr(obj, name)
        checked = self.checked(obj, name)
        if checked is not None:
            return checked
        return self._refuse(obj, name)

    @staticmethod
    def _dunder(obj, name: str):
        """``obj.__name__`` for a class, function or module; ``obj.__class__`` (as ``type(obj)``)."""
        if name == "__class__":
            return type(obj)
        if isinstance(obj, types.ModuleType):
            return torch_name(obj)
        if isinstance(obj, type) or callable(obj):
            value = getattr(obj, "__name__", None)
            if type(value) is str:
                return value
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '__name__'")

    def _builtin_attrs(self, obj):
        for kind, attrs in _NAMED_TUPLES:
            if isinstance(obj, kind):
                return attrs
        if isinstance(obj, Node):
            return NODE_ATTRS
        if isinstance(obj, AccumulateGrad):
            return ACC_ATTRS
        if isinstance(obj, dtypes.dtype):
            return DTYPE_ATTRS
        if isinstance(obj, Size):
            return SIZE_ATTRS
        if isinstance(obj, BaseException):
            return EXC_ATTRS
        if isinstance(obj, range):
            return RANGE_ATTRS
        if isinstance(obj, np.dtype):
            return NPDTYPE_ATTRS
        for kind, attrs in _BUILTIN_RECEIVERS:
            if isinstance(obj, kind):
                return attrs
        return None

    def _refuse(self, obj, name: str):
        if isinstance(obj, type):
            raise ForbiddenError(f"attributes of the class {obj.__name__} are not available in gradviz "
                                 "(create an instance and use its attributes)")
        kind = type(obj).__name__
        self.refuse_torch_name(obj, name)
        if hasattr(type(obj), name) or hasattr(obj, name):
            raise ForbiddenError(f"attribute '{name}' of {kind} objects is not available in gradviz")
        raise AttributeError(f"'{kind}' object has no attribute '{name}'")

    def refuse_torch_name(self, obj, name: str) -> None:
        """Raise "not supported in gradviz: Tensor.x" when PyTorch's class of ``obj`` has ``name``."""
        for cls_name, base in (("Tensor", Tensor), ("Module", self.module_base),
                               ("Optimizer", self.optimizer_base)):
            if base is not None and isinstance(obj, base) and name in TORCH_CLASS_NAMES[cls_name]:
                raise not_supported(f"{cls_name}.{name}")  # PyTorch has it; gradviz does not

    def set_attr(self, obj, name: str, value) -> None:
        """``obj.name = value`` for user code: tensors' grad/requires_grad/data, and attributes of user
        objects and of engine modules/optimizers. Never classes, modules or shared engine objects
        (dtypes, devices and sizes refuse it themselves, with PyTorch's errors)."""
        if name.startswith("_"):
            raise ForbiddenError(f"attribute '{name}' is not available in gradviz")
        if isinstance(obj, IMMUTABLE):
            setattr(obj, name, value)  # raises AttributeError, as PyTorch's objects do
            kind = type(obj).__name__
            raise ForbiddenError(f"setting attributes of {kind} objects is not allowed in gradviz")
        if isinstance(obj, Tensor):
            if name not in TENSOR_SETTABLE:
                raise ForbiddenError(f"setting attribute '{name}' of a tensor is not supported")
        elif not (self.is_user_instance(obj) or self.is_engine_instance(obj)):
            kind = "class" if isinstance(obj, type) else type(obj).__name__
            raise ForbiddenError(f"setting attributes of {kind} objects is not allowed in gradviz")
        setattr(obj, name, value)

    def del_attr(self, obj, name: str) -> None:
        if isinstance(obj, IMMUTABLE) and not name.startswith("_"):
            delattr(obj, name)  # raises AttributeError, as PyTorch's objects do
            raise ForbiddenError(f"deleting attribute '{name}' is not allowed in gradviz")
        if name.startswith("_") or not (self.is_user_instance(obj) or self.is_engine_instance(obj)):
            raise ForbiddenError(f"deleting attribute '{name}' is not allowed in gradviz")
        delattr(obj, name)

    # ---- calls -----------------------------------------------------------------------------------
    def check_call(self, f) -> bool:
        """Refuse calling anything outside the allow-list. Returns True when ``f`` is engine code
        (its arguments are then made concrete and size-checked by the caller)."""
        if type(f) is types.FunctionType:
            # A plain function's answer depends on the function alone (its module, and the fixed
            # sets of library and builtin callables): kept per function; a refusal is never kept.
            known = self._functions.get(f)
            if known is None:
                known = self._functions[f] = self._check_call(f)
            return known
        return self._check_call(f)

    def _check_call(self, f) -> bool:
        if type(f) is Unsupported:  # a name PyTorch has, imported: said where it is used
            raise f.refuse()
        if isinstance(f, (SuperMethod, InitMethod)):
            return True  # an engine method may sit behind super().f / nn.Module.__init__
        try:
            if f in LIBRARY_CALLABLES:
                return True  # math's and numpy's functions read their arguments through the gate
        except TypeError:  # unhashable callables are never library functions
            pass
        if isinstance(f, self.callable_types):
            return False
        try:
            if f in self.builtin_callables:
                return False
        except TypeError:  # unhashable callables are never builtins
            pass
        if isinstance(f, types.MethodType):
            func, owner = f.__func__, f.__self__
            if isinstance(func, self.callable_types):
                return False
            if isinstance(func, types.FunctionType):
                key = (func, type(owner))
                if key in self._engine_methods:
                    return True
                if is_engine_object(func):
                    if (issubclass(key[1], _ENGINE_RECEIVERS) or self.is_engine_instance(owner)
                            or self.is_user_instance(owner)):
                        self._engine_methods.add(key)  # decided by the receiver's type alone
                        return True
                    if (isinstance(owner, _ENGINE_RECEIVERS) or owner in self.engine_classes
                            or owner in self.user_classes):
                        return True
            raise self._not_callable(f)
        if isinstance(f, types.FunctionType):
            if is_engine_object(f):
                return True
            raise self._not_callable(f)
        if isinstance(f, types.BuiltinMethodType):
            owner = getattr(f, "__self__", None)
            for kind, attrs in _BUILTIN_RECEIVERS:
                if isinstance(owner, kind) and not isinstance(owner, type) and f.__name__ in attrs:
                    return False
            raise self._not_callable(f)
        if isinstance(f, type):
            if f in self.user_classes or f in self.exception_classes:
                return False
            if f in self.engine_classes or (is_engine_object(f) and any(
                    c in self.engine_classes for c in f.__mro__)):
                return True
            raise self._not_callable(f)
        if self.is_engine_instance(f) or self.is_user_instance(f):
            return True
        raise self._not_callable(f)

    @staticmethod
    def _not_callable(f) -> ForbiddenError:
        name = getattr(f, "__name__", None) if isinstance(f, (type, types.FunctionType,
                                                               types.BuiltinMethodType)) else None
        what = f"'{name}'" if isinstance(name, str) else f"'{type(f).__name__}' objects"
        return ForbiddenError(f"calling {what} is not allowed in gradviz")

    def check_base(self, base) -> None:
        """A user class may extend nn.Module (or a subclass of it), torch.autograd.Function, another
        user class, or nothing."""
        if base in self.user_classes:
            return
        if isinstance(base, type) and base in self.engine_classes and any(
                b is not None and issubclass(base, b) for b in (self.module_base, self.function_base)):
            return
        if base is object:
            return
        raise ForbiddenError("a class may only extend nn.Module, an nn layer, torch.autograd.Function or "
                             "another class of the program")

    def check_context_manager(self, cm) -> None:
        if self.is_engine_instance(cm) and hasattr(type(cm), "__enter__"):
            return
        raise ForbiddenError(f"'{type(cm).__name__}' objects cannot be used in a with statement in gradviz "
                             "(torch.no_grad(), torch.enable_grad() and torch.set_grad_enabled() can)")


__all__ = ["ForbiddenError", "LimitError", "Policy", "TORCH_MODULES", "torch_name"]
