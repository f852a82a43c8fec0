"""Texts in both languages (most of a formula reads the same in both), and the number, shape, tuple
and index-key formats the explanations use."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numbers import number_text

SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@dataclass(frozen=True)
class Text:
    """A text in English and in Chinese."""

    en: str
    zh: str

    @staticmethod
    def same(s: str) -> Text:
        return Text(s, s)

    @staticmethod
    def join(*parts) -> Text:
        """Concatenate strings (the same in both languages) and Texts."""
        en = "".join(p if isinstance(p, str) else p.en for p in parts)
        zh = "".join(p if isinstance(p, str) else p.zh for p in parts)
        return Text(en, zh)

    def data(self):
        """As the answer carries it: one string when both languages read the same."""
        return self.en if self.en == self.zh else {"en": self.en, "zh": self.zh}


def fmt_num(x) -> str:
    """A number as a formula writes it: 2, 0.5, 1e-12, −3 (a minus sign, not a hyphen)."""
    return number_text(x, whole=True)


def sup(x) -> str | None:
    """A small whole exponent in superscript (², ⁻¹), else None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    if float(x).is_integer() and -9 <= x <= 99:
        return str(int(x)).translate(SUPERSCRIPT)
    return None


def shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def wrap(t, prec: int) -> Text:
    """The text of term ``t`` (its ``text`` and ``prec``), in parentheses when it binds looser than
    ``prec``."""
    return Text.join("(", t.text, ")") if t.prec < prec else t.text


def right(t, prec: int) -> Text:
    """The right operand's text: in parentheses when it binds looser than ``prec`` or starts with a
    minus sign (``G · (−u²)``, ``a + (−3)``, never ``a + −3``)."""
    return Text.join("(", t.text, ")") if t.prec < prec or t.prec == 3 else t.text


def dims_text(axis) -> str:
    """Reduced dims as a formula writes them: ``1``, ``(0, 2)``."""
    if isinstance(axis, tuple):
        return str(axis[0]) if len(axis) == 1 else "(" + ", ".join(map(str, axis)) + ")"
    return str(axis)


def tuple_text(xs) -> str:
    """A tuple as Python writes it: ``(2, 3)``."""
    return "(" + ", ".join(str(x) for x in xs) + ")"


def key_text(p: dict, op: str) -> str:
    """An index key as Python writes it: ``:, 2``, ``1:3``, ``[0, 2]``."""
    if op == "select":
        return ":, " * p["dim"] + str(p["index"])
    if op == "slice":
        step = "" if p["step"] == 1 else f":{p['step']}"
        return ":, " * p["dim"] + f"{p['start']}:{p['stop']}{step}"
    parts = []
    for k in p.get("key", ()):
        if k is None:
            parts.append("None")
        elif k == "...":
            parts.append("...")
        elif isinstance(k, dict):
            start = "" if k["start"] is None else k["start"]
            stop = "" if k["stop"] is None else k["stop"]
            parts.append(f"{start}:{stop}" + ("" if k.get("step") in (None, 1) else f":{k['step']}"))
        elif isinstance(k, list):
            parts.append(list_text(k))
        else:
            parts.append(str(k))
    return ", ".join(parts)


def list_text(k) -> str:  # noqa: N802 - a list index as Python writes it
    flat = np.asarray(k).reshape(-1).tolist()
    return "[" + ", ".join(map(str, flat[:6])) + (", …" if len(flat) > 6 else "") + "]"
