"""POST /api/open: a closed part opened later, by running the program again in a worker; the answer
fits the run's, is refused for another run, and is shared through the cache (any replica)."""

from __future__ import annotations

import pytest

from app.drawing import layout
from app.examples import EXAMPLES

from .helpers import assert_consistent, svg_ids

SHARED = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(300):
    h = torch.tanh(h * w)
h.backward()
"""
EXPRESSION = {"source": "sum(torch.tanh(a * k) for k in range(100))",
              "variables": {"a": {"value": 0.3, "requires_grad": True}}}


class Counting:
    """Counts the worker pool's calls of one app."""

    def __init__(self, app):
        self.calls = 0
        pool = app.state.pool
        real = pool.call

        def call(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        pool.call = call


def opened(client, run: dict, source: str, open_: list[str], variables=None, view: int = 0):
    r = client.post("/api/open", json={"source": source, "variables": variables, "view": view, "open": open_,
                                       "fingerprint": run["fingerprint"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_gradient_heat_covers_the_edges_drawn_and_an_opened_part_brings_its_own(client):
    run = client.post("/api/run", json={"source": SHARED}).json()
    (heat,) = run["lenses"]["heat"]
    # the links into and out of the closed loop that stand for one edge each: x's in, h's out (w's
    # 300 edges into the loop are one line, drawn once, not an edge's own)
    alone = {link["edges"][0] for link in run["views"][0]["links"] if len(link["edges"]) == 1}
    assert len(alone) == 2 and {e["edge"] for e in heat["edges"]} == alone
    (loop,) = run["parts"]
    got = opened(client, run, SHARED, [loop["id"]])
    (part_heat,) = got["heat"]
    now = {e["id"] for e in got["graph"]["edges"]}
    sent = {f["edge"]: f for s in got["backward"][0]["steps"] for f in s["sent"] if f["grad"] is not None}
    assert {e["edge"] for e in part_heat["edges"]} == set(sent) & now
    assert len(part_heat["edges"]) > 500  # every tanh and mul of the 300 steps sent one back


def test_opening_a_closed_loop_brings_its_nodes_steps_and_drawing(client):
    run = client.post("/api/run", json={"source": SHARED}).json()
    (loop,) = run["parts"]
    assert run["views"][0]["open"] == [] and len(run["graph"]["nodes"]) == 3
    hidden = sum(len(r["nodes"]) for r in run["backward"][0]["hidden"])
    assert hidden == 599  # every step inside the loop, named by node id only
    got = opened(client, run, SHARED, [loop["id"]])
    view = got["views"][0]
    assert view["open"] == [loop["id"]] and not view["undrawn"]
    assert len(got["graph"]["nodes"]) == 602 and got["backward"][0]["hidden"] == []
    shown = {n["id"] for n in got["graph"]["nodes"]}
    assert all(s["node"] in shown for s in got["backward"][0]["steps"])
    ids = svg_ids(view["svg"])
    assert {f"n{n}" for n in shown} <= ids and loop["id"] in ids
    # the same run: the hidden steps of the answer are the steps the opened part shows, in order
    order = {s["index"]: s["node"] for s in got["backward"][0]["steps"]}
    for r in run["backward"][0]["hidden"]:
        assert [order[r["index"] + i] for i in range(len(r["nodes"]))] == r["nodes"]
    whole = dict(run, graph=got["graph"], backward=got["backward"], parts=got["parts"], views=got["views"])
    assert_consistent(whole)


def test_an_expression_opens_with_its_inputs(client):
    run = client.post("/api/run", json=EXPRESSION).json()
    assert run["error"] is None and run["parts"]
    got = opened(client, run, EXPRESSION["source"], [run["parts"][0]["id"]], EXPRESSION["variables"])
    assert len(got["graph"]["nodes"]) > len(run["graph"]["nodes"])


def test_another_run_or_view_is_refused(client):
    run = client.post("/api/run", json={"source": SHARED}).json()
    other = SHARED.replace("0.9", "0.8")
    r = client.post("/api/open", json={"source": other.replace("range(300)", "range(301)"), "view": 0,
                                       "open": ["p0"], "fingerprint": run["fingerprint"]})
    assert r.status_code == 409 and r.json()["error"]["type"] == "RunChanged"
    r = client.post("/api/open", json={"source": SHARED, "view": 3, "open": []})
    assert r.status_code == 400 and "no view 3" in r.json()["error"]["message"]
    r = client.post("/api/open", json={"source": SHARED, "view": 0, "open": ["loop"]})
    assert r.status_code == 422


def test_an_answer_is_cached_and_shared_by_replicas(fresh_app):
    """Two replicas (two apps, each with its own workers) behind one load balancer share the layout
    cache (in-process here, Redis in deploy/): a part opened on one is no run for the other; with
    the cache gone, the other runs the program again and answers the same."""
    # (nothing opened ahead: a busy machine would make the run slow enough for it, a call more; the
    # first is the app of this module's client, so that they are two)
    (first_app, a), (second_app, b) = fresh_app(pool_workers=1), fresh_app(pool_workers=1, open_ahead=0)
    first_app.state.settings.open_ahead = 0
    replicas = [first_app, second_app]
    counts = [Counting(app) for app in replicas]
    layout.CACHE.clear()  # an earlier test's run of SHARED is not in it
    run = a.post("/api/run", json={"source": SHARED}).json()
    layout.CACHE.clear()
    first = opened(a, run, SHARED, ["p0"])
    assert counts[0].calls == 2
    again = opened(b, run, SHARED, ["p0"])
    assert counts[1].calls == 0 and again == first  # from the shared cache
    layout.CACHE.clear()  # a replica that has not seen it (or the entry expired)
    fresh = opened(b, run, SHARED, ["p0"])
    assert counts[1].calls == 1
    assert fresh["graph"] == first["graph"] and fresh["backward"] == first["backward"]
    assert fresh["views"][0]["svg"] == first["views"][0]["svg"]


@pytest.mark.parametrize("steps", [1200])  # six chunks of 200
def test_a_long_loop_opens_in_chunks_and_a_chunk_shows_at_most_what_reads_well(client, steps):
    src = SHARED.replace("range(300)", f"range({steps})")
    run = client.post("/api/run", json={"source": src}).json()
    loop = run["parts"][0]["id"]
    step1 = opened(client, run, src, [loop])
    chunks = [p for p in step1["parts"] if p["parent"] == loop]
    assert len(chunks) > 1 and len(step1["graph"]["nodes"]) == len(run["graph"]["nodes"])
    step2 = opened(client, run, src, [loop, chunks[1]["id"]])
    assert step2["views"][0]["open"] == [loop, chunks[1]["id"]]
    assert 0 < len(step2["graph"]["nodes"]) - len(run["graph"]["nodes"]) <= chunks[1]["size"]


def test_a_part_of_a_later_view_opens_and_closes_drawn_as_a_part(client):
    # two backward passes, two views: the answer of view 1 alone names its parts by view 1
    source = next(e["source"] for e in EXAMPLES if e["id"] == "new-graph")
    run = client.post("/api/run", json={"source": source}).json()
    (part,) = [p for p in run["parts"] if p["view"] == 1]
    assert run["views"][1]["open"] == [part["id"]]
    closed = opened(client, run, source, [], view=1)
    view = closed["views"][0]
    assert view["index"] == 1 and view["open"] == [] and view["folded"]
    assert part["id"] in svg_ids(view["svg"])  # drawn as its closed box
    again = opened(client, run, source, [part["id"]], view=1)
    assert again["views"][0]["open"] == [part["id"]] and not again["views"][0]["folded"]
