"""The page's ES modules (static/js/) as one inline script, for a page that must work from a single
file (``file://`` pages may not load module files).

No bundler: the modules are written in a small, regular subset of ES module syntax, and this turns
each into a function that returns its exports, called in the order the browser would evaluate them
(dependencies first, depth first in import order). What it accepts, at the start of a line:

- ``import { a, b as c } from "./x.js";`` (one or several lines), ``import * as ns from "./x.js";``
  and ``import "./x.js";`` (relative paths only);
- ``export function`` / ``export async function`` / ``export class`` / ``export const`` and
  ``export { a, b as c };``.

Anything else that would change the meaning (a default export, ``export let`` (a live binding),
dynamic ``import()``, ``import.meta``, an import cycle) is refused with the file and the reason, so
a change to the page that this cannot carry fails its tests instead of shipping a broken file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_IMPORT_NAMED = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"([^"]+)"\s*;?[^\n]*$', re.M)
_IMPORT_ALL = re.compile(r'^import\s*\*\s*as\s+(\w+)\s+from\s*"([^"]+)"\s*;?[^\n]*$', re.M)
_IMPORT_BARE = re.compile(r'^import\s*"([^"]+)"\s*;?[^\n]*$', re.M)
_EXPORT_DECL = re.compile(r"^export\s+((?:async\s+)?function\*?|class|const)\s+([\w$]+)", re.M)
_EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}\s*;?[^\n]*$", re.M)
_REFUSED = [
    (re.compile(r"^export\s+default\b", re.M), "a default export"),
    (re.compile(r"^export\s+(let|var)\b", re.M), "an exported let/var (a live binding)"),
    (re.compile(r"^export\s*\*", re.M), "export * from"),
    (re.compile(r"\bimport\s*\("), "a dynamic import()"),
    (re.compile(r"\bimport\.meta\b"), "import.meta"),
]


class BundleError(ValueError):
    """A module uses syntax the inliner does not carry (the message names the file and why)."""


class _Module:
    def __init__(self, path: Path, root: Path):
        self.path = path
        self.key = path.relative_to(root).as_posix()
        self.text = path.read_text(encoding="utf-8")
        self.deps: list[Path] = []
        self.exports: list[tuple[str, str]] = []  # (exported name, local name)


def _resolve(spec: str, where: _Module) -> Path:
    if not spec.startswith(("./", "../")):
        raise BundleError(f"{where.key}: import of {spec!r}: only relative module paths are inlined")
    return (where.path.parent / spec).resolve()


def _bindings(names: str) -> list[tuple[str, str]]:
    """``a, b as c`` -> [("a", "a"), ("b", "c")] (imported or exported name, local name)."""
    out = []
    for part in names.split(","):
        part = part.strip()
        if not part:
            continue
        bits = part.split()
        if len(bits) == 1:
            out.append((bits[0], bits[0]))
        elif len(bits) == 3 and bits[1] == "as":
            out.append((bits[0], bits[2]))
        else:
            raise BundleError(f"cannot read the import/export list item {part!r}")
    return out


def _transform(mod: _Module, keys: dict[Path, str]) -> str:
    """The module's body as a function body returning its exports."""
    text = mod.text
    for pattern, what in _REFUSED:
        if pattern.search(text):
            raise BundleError(f"{mod.key}: {what} cannot be inlined")

    def named(m: re.Match) -> str:
        key = keys[_resolve(m.group(2), mod)]
        pairs = ", ".join(a if a == b else f"{a}: {b}" for a, b in _bindings(m.group(1)))
        return f"const {{ {pairs} }} = __modules[{json.dumps(key)}];"

    text = _IMPORT_NAMED.sub(named, text)
    text = _IMPORT_ALL.sub(
        lambda m: f"const {m.group(1)} = __modules[{json.dumps(keys[_resolve(m.group(2), mod)])}];", text)
    text = _IMPORT_BARE.sub("", text)

    def declared(m: re.Match) -> str:
        mod.exports.append((m.group(2), m.group(2)))
        return f"{m.group(1)} {m.group(2)}"

    text = _EXPORT_DECL.sub(declared, text)

    def listed(m: re.Match) -> str:
        mod.exports.extend((b, a) for a, b in _bindings(m.group(1)))
        return ""

    text = _EXPORT_LIST.sub(listed, text)
    for word in ("import", "export"):
        left = re.search(rf"^{word}\b[^\n]*", text, re.M)
        if left:
            raise BundleError(f"{mod.key}: cannot inline {left.group(0)!r}")
    exports = ", ".join(name if name == local else f"{name}: {local}" for name, local in mod.exports)
    return f"{text}\nreturn Object.freeze({{ {exports} }});"


def _deps(mod: _Module) -> list[Path]:
    """The modules ``mod`` imports, in the order of its import statements."""
    found = []
    for pattern, group in ((_IMPORT_NAMED, 2), (_IMPORT_ALL, 2), (_IMPORT_BARE, 1)):
        found += [(m.start(), _resolve(m.group(group), mod)) for m in pattern.finditer(mod.text)]
    return [p for _, p in sorted(found, key=lambda x: x[0])]


def bundle(entry: Path) -> str:
    """One script that evaluates ``entry`` and every module it imports, as the browser would."""
    entry = entry.resolve()
    root = entry.parent
    modules: dict[Path, _Module] = {}
    order: list[_Module] = []
    state: dict[Path, str] = {}

    def visit(path: Path, chain: list[str]) -> None:
        if state.get(path) == "done":
            return
        if state.get(path) == "open":
            raise BundleError("an import cycle cannot be inlined: " + " -> ".join(chain + [path.name]))
        if not path.is_file():
            raise BundleError(f"{chain[-1] if chain else '?'} imports {path}, which does not exist")
        state[path] = "open"
        mod = modules[path] = _Module(path, root)
        mod.deps = _deps(mod)
        for dep in mod.deps:
            visit(dep, chain + [mod.key])
        state[path] = "done"
        order.append(mod)

    visit(entry, [])
    keys = {p: m.key for p, m in modules.items()}
    parts = ["const __modules = {};"]
    for mod in order:
        body = _transform(mod, keys)
        parts.append(f"// ---- {mod.key}\n__modules[{json.dumps(mod.key)}] = (() => {{\n{body}\n}})();")
    return "\n".join(parts) + "\n"
