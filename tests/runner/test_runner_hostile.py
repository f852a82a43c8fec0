"""The hostile corpus: every program is refused with a clear error and writes nothing to disk."""

from __future__ import annotations

import os

import pytest
from hostile_corpus import HOSTILE, PWNED

from engine.runner import ProgramError, Settings, run_program


def refusal(source: str, settings: Settings | None = None):
    """The UserError a hostile program ends with, and whether it was refused before running."""
    try:
        r = run_program(source, settings=settings)
    except ProgramError as e:
        return e.error, True
    return r.error, False


def test_corpus_is_big_enough():
    assert len(HOSTILE) >= 60
    assert len({h[0] for h in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize("entry", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_program_is_refused(entry, tmp_path, monkeypatch):
    hid, source, expected = entry[:3]
    settings = Settings(**entry[3]) if len(entry) > 3 else None
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path))
    error, _ = refusal(source, settings)
    assert error is not None, f"{hid} ran without an error"
    assert error.type == expected, error
    assert error.message and "Traceback" not in error.message
    if expected == "LimitError":
        assert "(limit: " in error.message
    assert sorted(os.listdir(tmp_path)) == before
    assert not os.path.exists(PWNED)


def test_limit_messages_name_each_limit():
    cases = {
        "max_loop_iterations": "while True:\n    pass",
        "max_recursion": "def f():\n    f()\nf()",
        "max_int_bits": "x = 2 ** 20000",
        "max_str_chars": "s = 'a' * 200000",
        "max_list_items": "x = [0] * 200000",
        "max_tensor_elements": "t = torch.zeros(2000, 1000)",
        "max_tensor_bytes": "ts = [torch.zeros(1000, 1000) for i in range(20)]",
        "max_source_chars": "x = 1\n" * 5000,
        "max_nesting": "x = " + "-(" * 120 + "1" + ")" * 120,
    }
    for limit, src in cases.items():
        error, _ = refusal(src)
        assert error.type == "LimitError" and f"(limit: {limit})" in error.message, (limit, error)
    error, _ = refusal("x = [" + "1, " * 200 + "]", Settings(max_ast_nodes=100))
    assert "(limit: max_ast_nodes)" in error.message
    error, _ = refusal("x = torch.ones(1, requires_grad=True)\nfor i in range(100):\n    x = x * 2",
                       Settings(max_ops=50))
    assert "(limit: max_ops)" in error.message
    error, _ = refusal("while True:\n    x = 1", Settings(timeout_s=0.2, max_loop_iterations=10**9))
    assert "(limit: timeout_s)" in error.message


def test_tensor_bytes_count_what_is_alive_not_what_was_ever_allocated():
    # 20 x 4 MB allocated in turn, one alive at a time: more than 64 MB in all, never 64 MB alive.
    r = run_program("for i in range(20):\n    t = torch.zeros(1000, 1000)\nprint(t.shape)")
    assert r.error is None and r.stdout == "torch.Size([1000, 1000])\n"
    # The same tensors kept in a list are refused once 64 MB are alive.
    error, _ = refusal("ts = []\nfor i in range(20):\n    ts.append(torch.zeros(1000, 1000))")
    assert error.type == "LimitError" and "(limit: max_tensor_bytes)" in error.message


def test_refusals_keep_what_ran_before():
    r = run_program("print('hi')\nx = torch.ones(2)\nimport_me = 2 ** 100000\n")
    assert r.stdout == "hi\n" and "x" in r.variables
    assert r.error.type == "LimitError" and (r.error.line, r.error.col) == (3, 13)


def test_numpy_arrays_expose_only_harmless_attributes():
    r = run_program("t = torch.tensor([1.0, 2.0])\na = t.numpy()\nprint(a.shape, a.sum(), a.tolist())\n")
    assert r.error is None and r.stdout == "(2,) 3.0 [1.0, 2.0]\n"
    for attr in ("tofile", "dump", "dumps", "ctypes", "base", "data", "flags", "setflags", "view"):
        error, _ = refusal(f"a = torch.ones(2).numpy()\na.{attr}")
        assert error.type in ("ForbiddenError",), (attr, error)


def test_allow_list_follows_the_live_engine_modules(monkeypatch):
    import engine.nn

    def extra_layer_fn(x):
        return x * 2

    extra_layer_fn.__module__ = "engine.nn.extra"
    monkeypatch.setattr(engine.nn, "extra_layer_fn", extra_layer_fn, raising=False)
    r = run_program("print(nn.extra_layer_fn(21))")
    assert r.error is None and r.stdout == "42\n"
    # an object a module merely imported (not its API) stays out
    monkeypatch.setattr(engine.nn, "os_like", os, raising=False)
    error, _ = refusal("nn.os_like")
    assert error.type == "AttributeError"
    monkeypatch.setattr(engine.nn, "system", os.system, raising=False)
    error, _ = refusal("nn.system('true')")
    assert error.type == "AttributeError"
