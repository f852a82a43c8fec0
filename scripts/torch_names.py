"""Write engine/runner/torch_names.py: the public names of PyTorch's modules and classes that course
code reaches, so the program runner can tell a name gradviz does not support ("not supported in
gradviz: torch.fft") from one that does not exist in PyTorch at all (a typo).

Run with a Python that has PyTorch: ``.venv/bin/python scripts/torch_names.py``.
"""

from __future__ import annotations

import importlib
import pathlib

import torch

MODULES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.optim",
           "torch.optim.lr_scheduler", "torch.autograd", "torch.autograd.functional",
           "torch.autograd.forward_ad", "torch.autograd.function", "torch.func", "torch.linalg", "torch.cuda",
           "torch.utils", "torch.utils.data", "torch.utils.hooks"]
CLASSES = {"Tensor": torch.Tensor, "Module": torch.nn.Module, "Optimizer": torch.optim.Optimizer}


def public(obj) -> list[str]:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def entry(key: str, names: list[str]) -> list[str]:
    """``key: frozenset({...}),`` wrapped at 110 characters."""
    out, line = [f"    {key!r}: frozenset({{"], "       "
    for n in names:
        item = f" {n!r},"
        if len(line) + len(item) > 108:
            out.append(line)
            line = "       "
        line += item
    out += [line, "    }),"]
    return out


def main() -> None:
    lines = ['"""Public names of PyTorch ' + torch.__version__.split("+")[0] + "'s modules and classes "
             "(written by\nscripts/torch_names.py; do not edit).\n\n"
             "The runner answers a name listed here that gradviz lacks with\n"
             '"not supported in gradviz: ...", and any other missing name as PyTorch would (an\n'
             'AttributeError)."""', "",
             "MODULES = {"]
    for name in MODULES:
        mod = importlib.import_module(name)
        lines += entry(name, public(mod))
    lines += ["}", "", "CLASSES = {"]
    for name, cls in CLASSES.items():
        lines += entry(name, public(cls))
    lines += ["}", ""]
    out = pathlib.Path(__file__).resolve().parent.parent / "engine" / "runner" / "torch_names.py"
    out.write_text("\n".join(lines))
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
