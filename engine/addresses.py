"""Memory addresses never leave the engine: reprs show a per-run alias instead.

Python's default reprs (``<function f at 0x7f3a...>``) and PyTorch's grad_fn reprs
(``<MulBackward0 object at 0x...>``) print an object's real address, and an address is what an
attack on the interpreter needs first. gradviz keeps the form and replaces the number: the first
address shown in a run is 0x7f0000000001, the next 0x7f0000000002, and the same object keeps its
alias as long as it lives. The program runner starts a new numbering for every run
(``engine.runner.engine_state``).
"""

from __future__ import annotations

import re

_BASE = 0x7F0000000000
_aliases: dict[int, int] = {}
_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]+(?=>)")


def alias_of_address(address: int) -> str:
    """The alias of one real address (the same address always gets the same alias in a run). An
    alias given out already stays itself, so text can be scrubbed twice."""
    if _BASE < address <= _BASE + len(_aliases):
        return hex(address)
    n = _aliases.get(address)
    if n is None:
        n = _aliases[address] = len(_aliases) + 1
    return hex(_BASE + n)


def alias(obj) -> str:
    """The alias to print where Python would print ``hex(id(obj))``."""
    return alias_of_address(id(obj))


def scrub(text: str) -> str:
    """``text`` (a repr, or a message made of reprs) with every ``at 0x...>`` address replaced by
    its alias."""
    if " at 0x" not in text:
        return text
    return _ADDRESS.sub(lambda m: alias_of_address(int(m.group(0), 16)), text)
