"""A response model's checks applied to JSON text in one pass that also reads it, as the page reads it.

The server sends a worker's answer text on as it is, so what it must know is whether the text fits
the model, and what the page will read from it (``JSON.parse``). ``reader(model)`` builds, from the
model's own core schema, a pydantic-core validator that does both at once: each object of the model
is read as a dict instead of an instance (keys as written, so an alias stays the alias; keys the model
does not name kept, as a parser keeps them; no defaults added for keys left out), each union takes
its first member that fits (only whether one fits matters), and types are strict (a number is not a
string, a string not a number). What comes out is what ``JSON.parse`` gives, checked.
"""

from __future__ import annotations

import functools

import orjson
from pydantic import BaseModel
from pydantic_core import SchemaValidator

# Core schema types whose checks ``_plain`` carries over as they are.
_PLAIN = {"definitions", "definition-ref", "nullable", "list", "dict", "str", "int", "float", "bool",
          "literal", "any", "union", "default"}
# Types told to be strict one by one: a validator's own strict setting does not reach a typed dict's fields.
_STRICT = {"str", "int", "float", "bool", "list", "dict"}
# Words the page's parser refuses that pydantic's reads as numbers.
_NON_FINITE = (b"NaN", b"Infinity")


def _field(name: str, field: dict) -> tuple[str, dict]:
    alias = field.get("validation_alias", name)
    if not isinstance(alias, str):
        raise TypeError(f"field {name!r}: only a single alias is read plainly")
    inner, required = field["schema"], True
    if inner["type"] == "default":  # a key left out stays out (the page reads its absence)
        inner, required = inner["schema"], False
    return alias, {"type": "typed-dict-field", "schema": _plain(inner), "required": required}


def _model(schema: dict) -> dict:
    fields = schema["schema"]
    if fields["type"] != "model-fields" or fields.get("computed_fields"):
        raise TypeError(f"{schema['cls'].__name__}: only plain fields are read plainly")
    extra = (schema.get("config") or {}).get("extra_fields_behavior", "ignore")
    out = {"type": "typed-dict", "fields": dict(_field(k, f) for k, f in fields["fields"].items()),
           "extra_behavior": "forbid" if extra == "forbid" else "allow"}
    if "ref" in schema:
        out["ref"] = schema["ref"]
    return out


def _schema_of(choice) -> dict:
    """A union choice's schema (a choice is a schema, or a ``(schema, label)`` pair)."""
    return choice if isinstance(choice, dict) else choice[0]


def _plain(schema):
    """``schema`` (a core schema, or a part of one) with its models read as dicts."""
    if isinstance(schema, list):
        return [_plain(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind == "model":
        return _model(schema)
    if isinstance(kind, str) and kind not in _PLAIN:  # a validator function, a custom type: not here
        raise TypeError(f"a {kind!r} schema is not read plainly")
    out = {k: _plain(v) for k, v in schema.items() if k not in ("metadata", "serialization")}
    if kind == "union":
        out["mode"] = "left_to_right"
        # The order changes how many choices fail before one fits, not whether one does: lists first
        # (nested values) measured ~20% less time on a 50-step MLP answer.
        out["choices"] = sorted(out["choices"], key=lambda c: _schema_of(c).get("type") != "list")
    if kind in _STRICT:
        out["strict"] = True
    return out


class Reader:
    """Reads a JSON text that must fit one model: ``read(raw)`` is the plain data, or raises
    ``ValueError`` (pydantic's ``ValidationError`` is one) when the text is not JSON or does not fit."""

    def __init__(self, model: type[BaseModel]):
        self.validator = SchemaValidator(_plain(model.__pydantic_core_schema__))

    def read(self, raw: bytes):
        """The data of ``raw``: UTF-8 JSON text without NaN or infinities, fitting the model."""
        data = self.validator.validate_json(raw)
        # a cheap search first: the words can be in strings of a good answer, never as bare numbers
        if any(word in raw for word in _NON_FINITE):
            orjson.loads(raw)  # refuses NaN and Infinity as numbers, as JSON and the page's parser do
        return data


@functools.cache
def reader(model: type[BaseModel]) -> Reader:
    """The ``Reader`` of ``model`` (built once per model)."""
    return Reader(model)
