"""app/schemas/plain.py: the server checks a worker's answer against the schema and reads it in one
pass, and what it reads is what the page's ``JSON.parse`` reads (Python's json.loads stands for it)."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from app.schemas.open import OpenResponse
from app.schemas.plain import reader
from app.schemas.run import RunResponse

PROGRAM = """
import torch.nn as nn
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(5, 3)
for step in range(3):
    opt.zero_grad()
    loss = (net(x) ** 2).mean()
    loss.backward()
    opt.step()
print("loss", loss.item(), float("nan"))
"""


@pytest.fixture(scope="module")
def answer(client) -> str:
    r = client.post("/api/run", json={"source": PROGRAM})
    assert r.status_code == 200, r.text
    return r.text


def read(text: str):
    return reader(RunResponse).read(text.encode())


def test_a_real_answer_reads_as_the_page_reads_it_and_fits_the_model(answer):
    data = read(answer)
    assert data == json.loads(answer)
    RunResponse.model_validate(data)  # what was read plainly, the model accepts too
    assert data["views"][0]["svg"].startswith("<svg")


def test_repeated_and_escaped_keys_and_unknown_keys_read_as_a_parser_reads_them(answer):
    for text in (answer.replace('"stdout":', '"stdout":"first","stdout":', 1),
                 answer.replace('"stdout":', '"\\u0073tdout":"first","stdout":', 1),
                 answer.replace('"stdout":', '"not_in_the_schema":{"a":[1,"b"]},"stdout":', 1)):
        assert read(text) == json.loads(text)


@pytest.mark.parametrize("lie", [
    ('"stdout":', '"stdout":7,"x":'),  # a number where the schema says text
    ('"graph":{"nodes":[{"id":', '"graph":{"nodes":[{"id":"0","x":'),  # text where it says a number
    ('"auto_backward":', '"auto_backward":1,"x":'),  # a number for a truth value
    ('"variables":', '"variables":[],"x":'),  # a list for an object
    ('"graph":', '"x":'),  # a required key left out
])
def test_an_answer_off_the_schema_is_refused(answer, lie):
    text = answer.replace(*lie, 1)
    assert text != answer
    with pytest.raises(ValidationError):
        read(text)


def test_bare_nan_and_infinity_are_refused_as_the_page_refuses_them(answer):
    assert '"NaN"' in answer or "nan" in answer  # the program printed a NaN: the word is in a string
    read(answer.replace('"stdout":', '"stdout":"NaN and Infinity","x":', 1))
    for bare in ("NaN", "Infinity", "-Infinity"):
        text = answer.replace('"stdout":', f'"x":[1,{bare}],"stdout":', 1)
        with pytest.raises(ValueError):
            json.loads(text, parse_constant=lambda w: (_ for _ in ()).throw(ValueError(w)))
        with pytest.raises(ValueError):
            read(text)


def test_text_that_is_not_utf8_or_not_json_is_refused(answer):
    raw = answer.encode()
    for bad in (raw.replace(b'"stdout":"', b'"stdout":"\xff', 1), raw[:-1], b"", b"[]"):
        with pytest.raises(ValueError):
            reader(RunResponse).read(bad)


def test_every_answer_model_is_read_plainly_and_a_check_it_cannot_carry_is_refused():
    for model in (RunResponse, OpenResponse):
        assert reader(model) is reader(model)  # built once

    class Checked(BaseModel):
        n: int

        @field_validator("n")
        @classmethod
        def small(cls, v: int) -> int:
            assert v < 10
            return v

    with pytest.raises(TypeError):  # a validator function would be left out: no reader, not a weaker one
        reader(Checked)
