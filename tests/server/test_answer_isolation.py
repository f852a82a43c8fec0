"""What a program leaves in its client's kept worker reaches no other answer: not the next run of
that client (every run starts from a fresh process's engine state), and never another client
through the shared cache (only an answer of a worker that had run nothing before is kept). And a
program that prints without end gets an answer of bounded size that says its output was cut."""

from __future__ import annotations

import pytest

from app.drawing import layout
from app.routes.shared_answers import run_key
from app.sandbox import pool as sandbox_pool

FWAD = "import torch.autograd.forward_ad as fwAD\n"
JVP_PROGRAM = (FWAD + "with fwAD.dual_level():\n"
               "    d = fwAD.make_dual(torch.tensor(3.0), torch.tensor(1.0))\n"
               "    print('jvp', fwAD.unpack_dual(d * d).tangent)\n")
DEVICE_PROGRAM = "print('running on', torch.randn(3).device)\n"
FUNC_JVP = ("out, t = torch.func.jvp(lambda x: x * x, (torch.tensor(3.0),), (torch.tensor(1.0),))\n"
            "print('jvp', t)\n")
HOOK_IDS = "x = torch.ones(1, requires_grad=True)\nh = x.register_hook(lambda g: g)\nprint('handle', h.id)\n"


class Replies:
    """Records, for each worker call of an app, whether a worker that had run nothing computed it."""

    def __init__(self, app):
        self.fresh: list[bool] = []
        pool = app.state.pool
        real = pool.call

        def call(*args, **kwargs):
            reply = real(*args, **kwargs)
            self.fresh.append(reply.fresh)
            return reply

        pool.call = call


@pytest.fixture()
def served(monkeypatch, fresh_app):
    """An app as a test of its own finds it (nothing opened ahead), with an empty shared cache, that
    keeps a client's worker whatever its runs took on a busy machine."""
    monkeypatch.setattr(sandbox_pool, "KEEP_IF_FASTER_S", 60.0)
    app, c = fresh_app(pool_workers=2, open_ahead=0)
    app.state.pool.admission.s.heavy_after_s = 1e9
    return app, c, Replies(app)


def _cookie(c) -> str:
    """A gv_client cookie the server issued (a browser of its own); the client's jar is left empty,
    so each request names its browser itself."""
    value = c.get("/api/health").cookies.get("gv_client")
    c.cookies.clear()
    assert value
    return value


@pytest.fixture()
def browsers(served):
    """Two browsers, A and B: their cookies."""
    _, c, _ = served
    return _cookie(c), _cookie(c)


def run(c, source: str, cookie: str):
    r = c.post("/api/run", json={"source": source}, headers={"cookie": f"gv_client={cookie}"})
    assert r.status_code == 200, r.text
    return r


def _same_run(a, b) -> None:
    """Two answers of one program show the same run (their timings differ)."""
    x, y = a.json(), b.json()
    for key in ("stdout", "error", "graph", "backward", "forward", "fingerprint"):
        assert x[key] == y[key], key


def _left_then_run(served, browsers, leftover: str, source: str):
    """Client A runs ``leftover`` then ``source`` in its kept worker; then client B runs ``source``.
    The two answers of ``source``: A's (from the reused worker) and B's."""
    app, c, replies = served
    A, B = browsers
    run(c, leftover, A)
    mine = run(c, source, A)
    assert replies.fresh[-1] is False, "A's run was not in its kept worker"
    assert layout.CACHE.get(run_key(app.state.settings, source, None, "auto", "auto")) is None
    theirs = run(c, source, B)
    assert theirs.headers["X-Gradviz-Cache"] == "miss"  # the reused worker's answer was not shared
    assert replies.fresh[-1] is True
    return mine, theirs


def test_a_device_changed_by_a_program_stays_the_cpu_for_everyone(served, browsers):
    c = served[1]
    changed = run(c, "d = torch.ones(1).device\nd.type = 'cuda'\nd.index = 7\n", browsers[0]).json()
    assert changed["error"]["type"] == "AttributeError"
    assert changed["error"]["message"] == "attribute 'type' of 'torch.device' objects is not writable"
    mine, theirs = _left_then_run(served, browsers, "d = torch.ones(1).device\ntry:\n    d.type = 'cuda'\n"
                                  "except AttributeError:\n    pass\n", DEVICE_PROGRAM)
    assert theirs.json()["stdout"] == "running on cpu\n"  # what a fresh worker prints
    _same_run(mine, theirs)


def test_a_dual_level_left_open_reaches_no_later_run(served, browsers):
    mine, theirs = _left_then_run(served, browsers, FWAD + "fwAD.enter_dual_level()\n", JVP_PROGRAM)
    assert theirs.json()["stdout"] == "jvp tensor(6.)\n" and theirs.json()["error"] is None
    _same_run(mine, theirs)


@pytest.mark.parametrize("first, second, expected", [
    # a forward-mode program that fails inside its level, then the next one in the same worker
    (FWAD + "fwAD.enter_dual_level()\nx = fwAD.make_dual(torch.tensor(1.0), torch.tensor([1.0, 2.0]))\n"
     "fwAD.exit_dual_level()\n", FUNC_JVP, "jvp tensor(6.)\n"),
    # hooks registered by one program: the next one's handles are numbered as in a fresh worker
    ("x = torch.ones(1, requires_grad=True)\nfor i in range(3):\n    x.register_hook(lambda g: g)\n",
     HOOK_IDS, "handle 0\n"),
], ids=["dual-level-left-by-an-error", "hook-handle-ids"])
def test_a_program_after_another_in_the_same_worker_answers_as_a_fresh_one(served, browsers, first, second,
                                                                            expected):
    mine, theirs = _left_then_run(served, browsers, first, second)
    assert theirs.json()["stdout"] == expected
    _same_run(mine, theirs)


def test_an_answer_of_a_reused_worker_is_never_a_hit_for_another_client(served, browsers):
    _, c, replies = served
    A, B = browsers
    run(c, "x = 1\n", A)
    run(c, DEVICE_PROGRAM, A)
    assert replies.fresh == [True, False]
    first, again = run(c, DEVICE_PROGRAM, B), run(c, DEVICE_PROGRAM, B)
    assert first.headers["X-Gradviz-Cache"] == "miss" and replies.fresh == [True, False, True]
    assert again.headers["X-Gradviz-Cache"] == "hit" and again.content == first.content  # B's own, fresh


def test_an_endless_print_is_cut_and_the_answer_says_so(served, browsers):
    c = served[1]
    A, B = browsers
    r = run(c, "for i in range(30000):\n    print('x' * 1000)\n", A)
    body = r.json()
    assert body["stdout_truncated"] is True and body["error"] is None
    assert body["stdout"].endswith("the rest is not shown (limit: max_output_chars)]\n")
    assert len(body["stdout"]) < 1_000_200 and len(r.content) < 1_300_000  # not 30 MB
    wide = run(c, "s = '\\U0001F600' * 50000\nfor i in range(100):\n    print(s)\n", B)
    assert wide.json()["stdout_truncated"] is True and len(wide.content) < 1_300_000  # 12 bytes each
    short = run(c, "print('hi')\n", A).json()
    assert short["stdout"] == "hi\n" and short["stdout_truncated"] is False
