"""Error messages in the reader's language.

gradviz's own messages (a limit, a construct the sandbox refuses, an op it does not support, an
overloaded server) are said in both languages: each has an id in the server's catalogues,
``app/words/en.py`` (the English, ``{}`` where it varies) and ``app/words/zh.py`` (the Chinese,
``{0}``, ``{1}``... standing for what varied; a part that is itself a message of ours is translated
too). The app's own code raises a message by its id (``own_message``, app/words/messages.py); the engine
raises the same English itself, and a message is known by its English pattern here. PyTorch's and
Python's own texts stay verbatim, as they are what a search engine knows: ``FOREIGN`` recognizes the
common ones and the catalogues explain them, and every other one gets a sentence for its type. A test
finds every message the code base can raise and fails while one of ours is not in the catalogues.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .words import en, zh

# Messages of ours that are only a frame for others: their id -> the one error type they frame
# (never matched otherwise).
FRAMES: dict[str, str] = {"config_field": "ConfigError"}
# Ids of what follows "not supported in gradviz: " (ns_...): only ever a part of that message, never a
# whole one (``{} with src of another shape than index`` would otherwise take the whole message in).
PART = "ns_"

# ---- PyTorch's and Python's texts: how each explained one is recognized (its id in the catalogues) ----
FOREIGN: list[tuple[str, str]] = [
    ("backward_twice", r"^Trying to backward through the graph a second time"),
    ("no_cuda", r"^Torch not compiled with CUDA enabled"),
    ("nothing_requires_grad", r"^element 0 of tensors does not require grad"),
    ("implicit_scalar", r"^grad can be implicitly created only for scalar outputs"),
    ("leaf_inplace",
     r"^a (view of a )?leaf Variable that requires grad is being used in an in-place operation"),
    ("saved_modified",
     r"^one of the variables needed for gradient computation has been modified by an inplace operation"),
    ("requires_grad_leaf", r"^you can only change requires_grad flags of leaf variables"),
    ("float_only", r"^Only Tensors of floating point|^only Tensors of floating point"),
    ("broadcast_sizes", r"^The size of tensor a \(\d+\) must match the size of tensor b"),
    ("matmul_shapes", r"shapes cannot be multiplied"),
    ("dot_sizes", r"^inconsistent tensor size"),
    ("numpy_requires_grad", r"^Can't call numpy\(\) on Tensor that requires grad"),
    ("unused_input", r"^The differentiated Tensor at index \d+ appears to not have been used in the graph"),
    ("view_size", r"^shape '\[.*\]' is invalid for input of size"),
    ("index_bounds", r"^index -?\d+ is out of bounds for dimension"),
    ("target_bounds", r"^Target -?\d+ is out of bounds"),
    ("batch_size", r"^Expected input batch_size"),
    ("target_dtype", r"^expected target dtype to be Long"),
    ("mean_dtype", r"^mean\(\): could not infer output dtype"),
    ("name_undefined", r"^name '.*' is not defined"),
    ("module_attribute", r"^module '.*' has no attribute"),
    ("object_attribute", r"^'.*' object has no attribute"),
    ("immutable", r"(^attribute '.*' of 'torch\.\w+' objects is not writable|^'torch\.\w+' object attribute "
                  r"'.*' is read-only|"
                  r"^'torch\.Size' object (does not|doesn't) support item (assignment|deletion))"),
    ("operand_types", r"^unsupported operand type"),
    ("division_by_zero", r"division by zero"),
]


# ---- matching ------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern, str, str | None]]:
    """(regex of a message's English, its id, the error type it frames or None), the most specific
    (most literal text) first."""
    out = sorted(((text, key, FRAMES.get(key)) for key, text in en.MESSAGES.items()),
                 key=lambda kv: -len(kv[0].replace("{}", "")))
    return [(_regex(text, r"\Z"), key, only) for text, key, only in out]


def _regex(text: str, end: str = "") -> re.Pattern:
    """The English of a message as a pattern: each ``{}`` a group."""
    return re.compile("(.*?)".join(re.escape(p) for p in text.split("{}")) + end, re.S)


def translate(message: str, type_: str | None = None, depth: int = 0) -> str | None:
    """The Chinese of one of gradviz's own messages, or None (not ours)."""
    if depth > 3 or not message:
        return None
    for pattern, key, only in _patterns():
        if (only is not None and only != type_) or (depth == 0 and key.startswith(PART)):
            continue
        m = pattern.match(message)
        if m is None:
            continue
        parts = [translate(g, None, depth + 1) or g for g in m.groups()]
        if only is not None and all(p == g for p, g in zip(parts, m.groups())):
            continue  # a frame whose content is not ours: no translation
        out = zh.MESSAGES[key]
        for i, p in enumerate(parts):
            out = out.replace("{" + str(i) + "}", p)
        return out
    return None


def explain_error(type_: str, message: str) -> dict:
    """``{"gradviz": bool, "zh": Chinese of our own message or None, "note": {"en", "zh"} or None}``: our
    messages are translated; PyTorch's and Python's get a sentence beside their verbatim text."""
    said = translate(message or "", type_)
    if said is not None:
        return {"gradviz": True, "zh": said, "note": _own_note(message)}
    for pattern, key in _foreign():
        if pattern.search(message or ""):
            return {"gradviz": False, "zh": None, "note": {"en": en.EXPLAINED[key], "zh": zh.EXPLAINED[key]}}
    return {"gradviz": False, "zh": None, "note": {"en": en.BY_TYPE.get(type_, en.GENERIC),
                                                    "zh": zh.BY_TYPE.get(type_, zh.GENERIC)}}


@lru_cache(maxsize=1)
def _foreign() -> list[tuple[re.Pattern, str]]:
    return [(re.compile(p), key) for key, p in FOREIGN]


def _own_note(message: str) -> dict | None:
    for key in en.NOTES:
        if _regex(en.MESSAGES[key]).fullmatch(message):
            return {"en": en.NOTES[key], "zh": zh.NOTES[key]}
    return None
