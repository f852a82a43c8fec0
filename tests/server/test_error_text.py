"""Errors in both languages: every message of gradviz's own that the code base can raise has its
Chinese; PyTorch's and Python's texts stay verbatim with a sentence beside them; a PyTorch name gradviz
lacks says so and where the supported operations are listed (/ops, /api/ops)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.error_text import FOREIGN, FRAMES, explain_error, translate
from app.schemas import error_info
from app.server.classes import REASONS
from app.words import en, zh
from engine.runner import ProgramError, run_program

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
# Raised with our own words: these classes, these error types, a "(limit: ...)" note or "gradviz" in the text.
OWN_CLASSES = {"ForbiddenError", "LimitError", "MlpConfigError", "BoundaryError", "RunTimeout",
               "WorkerCrashed", "WorkerProtocolError"}
OWN_TYPES = {"ForbiddenError", "LimitError", "ConfigError", "ServerBusy", "TimeoutError", "SandboxError",
             "InternalError", "RequestTooLarge"}


def _skeleton(node) -> str | None:
    """A message's text with ``{}`` where it varies (None: not a text we can read)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _skeleton(node.left), _skeleton(node.right)
        return None if a is None and b is None else (a or "{}") + (b or "{}")
    return None


def _constant(node) -> str:
    return node.value if isinstance(node, ast.Constant) else ""


def own_messages() -> set[str]:
    """Every message of ours the engine and the app can raise or answer with."""
    found = set()
    for path in sorted([*ROOT.joinpath("engine").rglob("*.py"), *ROOT.joinpath("app").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):  # tables of messages (the checker's refused constructs)
                for v in node.values:
                    text = _skeleton(v)
                    if text and "not supported by gradviz" in text:
                        found.add(text)
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            kind, arg = name, None
            if name in ("_fail", "error_info", "UserError") and len(node.args) >= 2:
                kind, arg = _constant(node.args[0]), node.args[1]
            elif name == "error_response" and len(node.args) >= 3:
                kind, arg = _constant(node.args[1]), node.args[2]
            elif (name.endswith("Error") or name in OWN_CLASSES or name == "__init__") and node.args:
                arg = node.args[0]
            elif name == "own_message" and node.args:  # the app's own messages, by id
                key = _skeleton(node.args[0]) or ""
                if key.endswith("{}"):  # a family of ids (class_{reason}): at least one is there
                    known = any(k.startswith(key[:-2]) for k in en.MESSAGES)
                    found.add("" if known else f"<no message's id starts with {key[:-2]!r}>")
                else:
                    found.add(en.MESSAGES.get(key, f"<no message has the id {key!r}>"))
                continue
            elif name == "not_supported" and node.args:  # "not supported in gradviz: <what>"
                what = _skeleton(node.args[0])
                if what and " " in what:  # words (code, such as Tensor.unfold, stays as it is)
                    found.add(what)
                continue
            text = _skeleton(arg) if arg is not None else None
            if text is None:
                continue
            if kind in OWN_CLASSES or kind in OWN_TYPES or "gradviz" in text or "(limit: " in text:
                found.add(text)
    return found


def test_every_message_of_ours_has_its_chinese():
    messages = own_messages()
    assert len(messages) > 80
    messages.discard("")
    keys = set(en.MESSAGES.values())
    missing = sorted(m for m in messages if m not in keys and m.replace("{{}}", "{}") not in keys)
    assert not missing, missing
    for key, english in en.MESSAGES.items():
        chinese = zh.MESSAGES[key]
        # a frame holds only what it frames (said in words); every varying part has its place
        frame = not re.sub(r"\{\d\}|\(limit: \w+\)|[\s：:]", "", chinese)
        assert chinese != english and (CJK.search(chinese) or frame), key
        assert chinese.count("{") == english.count("{}") or "{{" in english, key


def test_the_server_catalogues_have_the_same_ids_in_both_languages():
    for table in ("MESSAGES", "NOTES", "EXPLAINED", "BY_TYPE", "SAID"):
        assert list(getattr(en, table)) == list(getattr(zh, table)), table
    assert set(FRAMES) <= set(en.MESSAGES) and set(en.NOTES) <= set(en.MESSAGES)
    assert [key for key, _ in FOREIGN] == list(en.EXPLAINED)
    assert len(set(en.MESSAGES.values())) == len(en.MESSAGES)  # one id per message
    assert all(f"class_{reason}" in en.MESSAGES for reason in REASONS)  # a live class's refusals


def test_every_pytorch_or_python_text_has_a_sentence_in_both_languages():
    for key in en.EXPLAINED:
        assert en.EXPLAINED[key] and CJK.search(zh.EXPLAINED[key]), key
    for key in en.BY_TYPE:
        assert en.BY_TYPE[key] and CJK.search(zh.BY_TYPE[key]), key


def program_error(source: str) -> dict:
    try:
        result = run_program(source)
    except ProgramError as exc:
        err = exc.error
    else:
        err = result.error
    assert err is not None, source
    return error_info(err.type, err.message, err.line, err.col)


@pytest.mark.parametrize("source", [
    "x = torch.ones(2, 2)\ny = torch.linalg.inv(x)",
    "x = torch.ones(2, 2)\ny = x.cholesky()",
    "m = nn.Conv2d(1, 1, 3)",
    "import torch.fft\ntorch.fft.fft(torch.ones(4))",
    "from torch.nn import Conv2d\nConv2d(1, 1, 3)",
])
def test_a_pytorch_name_gradviz_lacks_is_not_a_typo(source):
    e = program_error(source)
    assert e["type"] == "NotSupportedError" and e["message"].startswith("not supported in gradviz: "), e
    assert e["explain"]["gradviz"] and e["explain"]["zh"].startswith("gradviz 不支持："), e
    note = e["explain"]["note"]
    assert "/ops" in note["en"] and "/ops" in note["zh"] and "暂不支持" in note["zh"], note


def test_what_is_not_supported_is_said_in_chinese_too():
    e = program_error("x = torch.tensor([1 + 2j])")
    assert e["message"] == "not supported in gradviz: complex numbers"
    assert e["explain"]["zh"] == "gradviz 不支持：复数"


def test_a_real_typo_stays_a_typo():
    e = program_error("y = torch.frobnicate(1)")
    assert e["message"] == "module 'torch' has no attribute 'frobnicate'" and not e["explain"]["gradviz"]
    assert CJK.search(e["explain"]["note"]["zh"])


@pytest.mark.parametrize("source", [
    "global x",
    "import os",
    "x = 1\nwhile True:\n    x += 1",
    "class A:\n    def __add__(self, o):\n        return 1",
    "x = torch.tensor([1.0])\nx.unfold(0, 1, 1)",
    "x = torch.tensor(1.0, requires_grad=True)\ny = torch.where(x > 0)",
])
def test_our_messages_come_in_chinese(source):
    e = program_error(source)
    assert e["explain"]["gradviz"], e
    zh = e["explain"]["zh"]
    assert CJK.search(zh) and zh != e["message"]


def test_pytorch_texts_stay_verbatim_with_a_chinese_sentence():
    e = program_error("x = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\ny.backward()\ny.backward()")
    assert e["message"].startswith("Trying to backward through the graph a second time")
    assert not e["explain"]["gradviz"] and e["explain"]["zh"] is None
    assert "retain_graph=True" in e["explain"]["note"]["zh"] and CJK.search(e["explain"]["note"]["zh"])


def test_a_frame_translates_only_what_it_frames():
    assert translate("hidden: at most 6 hidden layers", "ConfigError") == "hidden：最多 6 个隐藏层"
    assert translate("hidden: something of pydantic's", "ConfigError") is None
    assert translate("the server is busy; try again in 3 s (every worker is busy)") == \
        "服务器繁忙；请在 3 秒后重试（所有工作进程都在忙）"
    late = explain_error("TimeoutError",
                         "the program ran past its deadline and was stopped (limit: timeout_s)")
    assert late["zh"] == "程序超过了截止时间，已被停止 (limit: timeout_s)"


def test_the_supported_operations_are_listed(client):
    data = client.get("/api/ops").json()
    from engine.ops.table import OPS

    assert {o["op"] for o in data["ops"]} == set(OPS)
    assert all(CJK.search(o["about"]["zh"]) for o in data["ops"])
    assert "sigmoid" in data["names"]["torch"] and "Linear" in data["names"]["torch.nn"]
    assert "fft" not in data["names"]["torch"] and "norm" in data["names"]["torch.linalg"]
    for lang, word in (("en", "What gradviz supports"), ("zh", "gradviz 支持的运算")):
        page = client.get(f"/ops?lang={lang}")
        assert page.status_code == 200 and word in page.text and "MmBackward0" in page.text


def test_what_follows_not_supported_is_said_inside_that_message():
    said = translate("not supported in gradviz: scatter_ with src of another shape than index")
    assert said == "gradviz 不支持：src 与 index 形状不同的 scatter_"
    assert translate("scatter_ with src of another shape than index") is None  # never a whole message
