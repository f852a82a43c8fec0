"""Which names a ``torch`` module exposes to a program: the engine modules that stand for torch's
(``TORCH_MODULES``), and the engine's part of the allow-list built from them (``engine_tables``):
their public names whose values are engine functions, engine classes, dtypes, allowed submodules or
plain constants, the engine's classes, the Tensor's attributes. The policy (engine/runner/policy.py)
answers every name, attribute and call from these tables."""

from __future__ import annotations

import importlib
import types

from .. import dtypes
from ..naming import home
from ..tensor import Tensor
from .libraries import LIBRARIES

_LIBRARY_MODULES = frozenset(LIBRARIES.values())

# The engine's own name: "engine" in a checkout, "gradviz.engine" when installed.
ENGINE = __package__.rpartition(".")[0]
# The engine modules user code can reach, and the torch names they stand for.
TORCH_MODULES = {
    "torch": ENGINE,
    "torch.nn": f"{ENGINE}.nn",
    "torch.nn.functional": f"{ENGINE}.nn.functional",
    "torch.nn.init": f"{ENGINE}.nn.init",
    "torch.nn.utils": f"{ENGINE}.nn.utils",
    "torch.optim": f"{ENGINE}.optim",
    "torch.optim.lr_scheduler": f"{ENGINE}.optim.lr_scheduler",
    "torch.autograd": f"{ENGINE}.autograd",
    "torch.autograd.function": f"{ENGINE}.autograd.function",
    "torch.autograd.functional": f"{ENGINE}.autograd.functional",
    "torch.autograd.forward_ad": f"{ENGINE}.autograd.forward_ad",
    "torch.func": f"{ENGINE}.func",
    "torch.linalg": f"{ENGINE}.linalg",
    "torch.cuda": f"{ENGINE}.cuda",
    "torch.utils": f"{ENGINE}.utils",
    "torch.utils.data": f"{ENGINE}.utils.data",
    "torch.utils.hooks": f"{ENGINE}.utils.hooks",
}
# Public names of those modules that are still not for user code (runner hooks, file access).
DENY_NAMES = frozenset({"name_module", "save", "load", "from_file", "trace", "grad_mode", "runner"})
# Attribute names refused on every object, whatever its type.
DENY_ATTRS = frozenset({"tofile", "dump", "dumps", "ctypes", "base", "np", "save", "load", "mro"})


def torch_name(module) -> str:
    """``engine.nn`` -> ``torch.nn`` (for messages)."""
    name = getattr(module, "__name__", "?")
    return "torch" + name[len(ENGINE):] if name == ENGINE or name.startswith(ENGINE + ".") else name


def is_engine_object(value) -> bool:
    """Whether ``value`` (a function or class) is defined in the engine, outside its runner."""
    mod = home(value)
    return (mod == ENGINE or mod.startswith(ENGINE + ".")) and not mod.startswith(ENGINE + ".runner")


_TABLES: dict = {}  # the engine's part of the allow-list, by the modules' sizes


def engine_tables() -> tuple:
    """(modules by torch path, module set, allowed names per module, engine classes, Tensor
    attributes): read-only and shared by every run, rebuilt only when a module gained or lost names
    (programs cannot change engine modules; the engine's own code can)."""
    modules: dict[str, types.ModuleType] = {}
    for torch_path, engine_path in TORCH_MODULES.items():
        try:
            modules[torch_path] = importlib.import_module(engine_path)
        except ImportError:
            continue
    modules.update(LIBRARIES)
    key = tuple(len(vars(m)) for m in modules.values())
    if key not in _TABLES:
        module_set = frozenset(modules.values())
        module_attrs: dict[types.ModuleType, dict] = {}
        classes: set = set()
        top = modules.get("torch")
        for mod in module_set:
            if mod in _LIBRARY_MODULES:  # curated: every public name is offered, no class is the engine's
                module_attrs[mod] = {k: v for k, v in vars(mod).items() if not k.startswith("_")}
                continue
            allowed = {}
            listed = vars(mod).get("__all__")  # a module that lists its API offers nothing else of its own
            for name, value in vars(mod).items():
                if name.startswith("_") or name in DENY_NAMES:
                    continue
                own = _acceptable(value, mod.__name__, module_set) and (listed is None or name in listed)
                if not (own or _reexported(top, name, value)):
                    continue
                allowed[name] = value
                if isinstance(value, type):
                    classes.add(value)
            module_attrs[mod] = allowed
        classes.discard(object)
        tensor_attrs = frozenset(n for n in dir(Tensor) if not n.startswith("_")) - DENY_ATTRS
        _TABLES.clear()
        _TABLES[key] = (modules, module_set, module_attrs, frozenset(classes), tensor_attrs)
    return _TABLES[key]


def _reexported(top, name: str, value) -> bool:
    """The same object under the same name in the top-level API (``F.sigmoid`` is ``torch.sigmoid``)."""
    return top is not None and callable(value) and vars(top).get(name) is value


def _acceptable(value, owner: str, module_set) -> bool:
    """A public name of module ``owner`` is its API when it is an allowed submodule, a dtype, a
    constant, or a function/class defined in that module (or, for a package, inside it): names
    a module merely imported for its own use (``np``, ``Node``, ``apply``) are not. An object is its
    API when its class is (``torch.default_generator``)."""
    if isinstance(value, types.ModuleType):
        return value in module_set
    if isinstance(value, dtypes.dtype):
        return True
    if value is None or type(value) in (bool, int, float, str):
        return True
    if not (isinstance(value, type) or callable(value)):
        value = type(value)  # an object the module offers (torch.default_generator): judged by its class
    mod = home(value)
    return is_engine_object(value) and (mod == owner or mod.startswith(owner + "."))
