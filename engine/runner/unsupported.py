"""Names PyTorch has and gradviz does not, as a program imports them: the import itself goes through
(a notebook imports more than it uses, ``from torch.func import vmap``), and the name stands for an
``Unsupported`` placeholder that says "not supported in gradviz: NAME" where the program uses it (calls
it, reads an attribute of it, extends it or enters it), as a missing attribute of ``torch`` already does.
"""

from __future__ import annotations

from ..errors import not_supported
from .torch_names import MODULES as TORCH_NAMES


class Unsupported:
    """An imported name of PyTorch that gradviz lacks; any use of it raises NotSupportedError."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def refuse(self):
        """The error a use of it raises."""
        return not_supported(self.name)

    def __repr__(self) -> str:
        return f"<not supported in gradviz: {self.name}>"


def pytorch_has(module: str) -> bool:
    """Whether ``module`` (``torch.fft``, ``torch.distributions.normal``) is a part of PyTorch: a module
    of its own or a name of its parent module in PyTorch's list."""
    parts = module.split(".")
    if parts[0] != "torch" or len(parts) < 2:
        return False
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        if parent not in TORCH_NAMES:  # a part of PyTorch whose names are not listed
            return True
        if parts[i] not in TORCH_NAMES[parent]:
            return False
    return True


def imported_module(policy, path: str):
    """What ``import path as name`` binds: the engine's module, or a placeholder for a part of PyTorch
    gradviz lacks (the checker lets only those two through)."""
    mod = policy.module_for(path)
    return mod if mod is not None else Unsupported(path)


def names_imported(policy, path: str, aliases) -> list[tuple]:
    """The (name, value) pairs ``from path import ...`` binds (``*``: every name the module offers)."""
    mod = policy.module_for(path)
    out = []
    for alias in aliases:
        if alias.name == "*" and mod is not None:
            out.extend(policy.module_attrs[mod].items())
        else:
            out.append((alias.asname or alias.name, imported_name(policy, path, mod, alias.name)))
    return out


def imported_name(policy, path: str, mod, name: str):
    """What ``from path import name`` binds: the module's value, or a placeholder for a name of PyTorch
    gradviz lacks (in a module it lacks, or missing from one it has)."""
    if mod is None:
        if name == "*":
            raise not_supported(path)
        return Unsupported(path)
    if name not in policy.module_attrs.get(mod, {}) and name in TORCH_NAMES.get(path, ()):
        return Unsupported(f"{path}.{name}")
    return policy.module_attr(mod, name)
