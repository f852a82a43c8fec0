"""Texts in both languages (most of a formula reads the same in both), and the number and shape
formats the explanations use."""

from __future__ import annotations

from dataclasses import dataclass

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
    if x is None:
        return "None"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        text = str(int(x))
    else:
        text = f"{float(x):.4g}"
    return text.replace("-", "−")


def sup(x) -> str | None:
    """A small whole exponent in superscript (², ⁻¹), else None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    if float(x).is_integer() and -9 <= x <= 99:
        return str(int(x)).translate(SUPERSCRIPT)
    return None


def shape_text(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"
