"""What every part of the contract uses: JSON-safe numbers and nested values, a value's summary,
and the error shape every failure is reported in (``error_info``)."""

from __future__ import annotations

from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

# A named recursive alias (an implicit one, ``list["Nested"]``, recurses forever in pydantic 2.14).
Nested = TypeAliasType("Nested", float | int | bool | None | list["Nested"])
# Output values may also hold the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers;
# JavaScript's Number(s) reads them back).
NestedOut = TypeAliasType("NestedOut", float | int | bool | str | None | list["NestedOut"])
Num = float | int | str | None  # a JSON-safe number (non-finite ones as strings)


# ---- errors ---------------------------------------------------------------------------------------
class LocalizedText(BaseModel):
    en: str
    zh: str


class ErrorExplain(BaseModel):
    """The error in the reader's language (app/error_text.py)."""

    gradviz: bool = Field(description="the message is gradviz's own words (then ``zh`` is its Chinese)")
    zh: str | None = None
    note: LocalizedText | None = Field(
        default=None, description="what PyTorch's or Python's verbatim text means, in each language")


class ErrorInfo(BaseModel):
    """What went wrong, where: ``line`` and ``col`` are 1-based positions in the source (None if unknown)."""

    type: str = Field(description="e.g. SyntaxError, ForbiddenError, NameError, RuntimeError, LimitError")
    message: str
    line: int | None = None
    col: int | None = None
    explain: ErrorExplain | None = None


class ErrorResponse(BaseModel):
    """Body of every 4xx answer."""

    error: ErrorInfo


def error_info(type_: str, message: str, line: int | None = None, col: int | None = None) -> dict:
    """An ``ErrorInfo`` as plain data: how every failure is reported, built in this one place (with the
    message in the reader's language beside it)."""
    from ..error_text import explain_error

    return {"type": type_, "message": message, "line": line, "col": col,
            "explain": explain_error(type_, message)}


# ---- values -------------------------------------------------------------------------------------
class Summary(BaseModel):
    """A large tensor in brief."""

    min: Num
    max: Num
    mean: Num
    norm: Num
    head: list[float | int | bool | str] = Field(description="the first elements, flattened")


class Value(BaseModel):
    """A tensor's value: in full when it has at most 64 elements, else a summary."""

    shape: list[int]
    dtype: str
    data: NestedOut = Field(default=None, description="nested list; null when summarized")
    summary: Summary | None = None


Said = str | LocalizedText  # a text that reads the same in both languages (a formula), or one per language
