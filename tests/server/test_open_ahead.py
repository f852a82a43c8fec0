"""Boxes opened ahead of the click: after a run that took a while, the answers of the boxes its
drawing shows wait in the shared cache, so opening one runs nothing; an answer leaves out what the
page's drawing already shows, and what the page then holds is what a whole answer would give it."""

from __future__ import annotations

from app.drawing import layout
from app.folding.ahead import states_ahead
from app.folding.delta import shown_at, without_held
from app.routes.shared_answers import PENDING, open_key

from .test_open import SHARED, Counting


def post_open(client, run: dict, source: str, opened: list[str], had: list[str] | None):
    body = {"source": source, "view": 0, "open": opened, "fingerprint": run["fingerprint"]}
    if had is not None:
        body["had"] = had
    r = client.post("/api/open", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_the_boxes_a_drawing_shows_are_the_ones_opened_ahead_each_on_its_own():
    answer = {"views": [{"index": 0, "open": []}, {"index": 1, "open": ["q0"]}],
              "parts": [{"id": "p0", "view": 0, "parent": None}, {"id": "p1", "view": 0, "parent": "p0"},
                        {"id": "p2", "view": 0, "parent": None}, {"id": "q0", "view": 1, "parent": None},
                        {"id": "q1", "view": 1, "parent": "q0"}]}
    # p1 lies inside the closed p0 (not drawn); q0 is open already
    assert states_ahead(answer, 10) == [(0, ["p0"], []), (0, ["p2"], []), (1, ["q0", "q1"], ["q0"])]
    assert states_ahead(answer, 2) == [(0, ["p0"], []), (0, ["p2"], [])]
    # an answer of one view names it by its number
    one = {"views": [{"index": 1, "open": ["q0"]}], "parts": answer["parts"][3:]}
    assert states_ahead(one, 10) == [(1, ["q0", "q1"], ["q0"])]


def test_an_open_answer_leaves_out_what_the_drawing_showed_and_the_page_ends_up_whole(client):
    run = client.post("/api/run", json={"source": SHARED}).json()
    (loop,) = run["parts"]
    whole = post_open(client, run, SHARED, [loop["id"]], None)
    delta = post_open(client, run, SHARED, [loop["id"]], [])
    assert delta["views"] == whole["views"] and delta["parts"] == whole["parts"]
    held = shown_at(whole, [])
    assert held and held <= {n["id"] for n in run["graph"]["nodes"]}
    got = {n["id"] for n in delta["graph"]["nodes"]}
    assert got and not got & held
    # what the page holds after merging (static/js/merge.js) is what the whole answer gives it
    merged = {n["id"]: n for n in run["graph"]["nodes"]} | {n["id"]: n for n in delta["graph"]["nodes"]}
    for n in whole["graph"]["nodes"]:
        assert merged[n["id"]] == n
    steps = {s["index"]: s for s in run["backward"][0]["steps"]} | \
            {s["index"]: s for s in delta["backward"][0]["steps"]}
    for s in whole["backward"][0]["steps"]:
        assert steps[s["index"]] == s
    edges = {e["id"] for e in run["graph"]["edges"] + delta["graph"]["edges"]}
    assert {e["id"] for e in whole["graph"]["edges"]} <= edges
    assert len(delta["graph"]["nodes"]) < len(whole["graph"]["nodes"])
    assert without_held(whole, None) is whole


def test_boxes_opened_ahead_answer_the_click_without_running_the_program(fresh_app):
    app, c = fresh_app(pool_workers=1, open_ahead_after_s=0.0)
    run = c.post("/api/run", json={"source": SHARED}).json()  # the work ahead runs once it is sent
    (loop,) = run["parts"]
    count = Counting(app)
    ahead = post_open(c, run, SHARED, [loop["id"]], [])
    assert count.calls == 0
    layout.CACHE.clear()
    fresh = post_open(c, run, SHARED, [loop["id"]], [])
    assert count.calls >= 1
    assert fresh["graph"] == ahead["graph"] and fresh["backward"] == ahead["backward"]
    assert fresh["views"][0]["svg"] == ahead["views"][0]["svg"]


def test_nothing_is_done_ahead_after_a_quick_run_or_when_switched_off(fresh_app):
    # a quick run: quicker than the threshold however busy the machine is
    for change in ({"open_ahead_after_s": 60.0}, {"open_ahead": 0}):
        app, c = fresh_app(pool_workers=1, open_ahead_after_s=0.0)
        for name, value in change.items():
            setattr(app.state.settings, name, value)
        count = Counting(app)
        run = c.post("/api/run", json={"source": SHARED}).json()
        assert count.calls == 1
        post_open(c, run, SHARED, [run["parts"][0]["id"]], [])
        assert count.calls == 2


def test_the_first_box_ahead_is_answered_by_a_run_of_its_own(fresh_app):
    # a click on the first chunk of an opened loop waits for one run and one answer, not for the
    # answers of every chunk the drawing shows
    app, c = fresh_app(pool_workers=1, open_ahead_after_s=0.0)
    source = SHARED.replace("range(300)", "range(1000)")
    app.state.settings.open_ahead = 0  # nothing ahead of the run: the loop is opened here
    run = c.post("/api/run", json={"source": source}).json()
    (loop,) = run["parts"]
    calls, pending = [], []
    pool = app.state.pool
    real = pool.call

    def call(job, *args, **kwargs):
        if job == "opens":
            calls.append([s[1][-1] for s in args[2]])
            pending.append(set(PENDING._events))  # what a click now would wait for
        return real(job, *args, **kwargs)

    pool.call = call
    app.state.settings.open_ahead = 4
    opened = post_open(c, run, source, [loop["id"]], [])  # the chunks ahead once it is sent
    chunks = [p["id"] for p in opened["parts"] if p["kind"] == "chunk"]
    assert len(chunks) == 5 and calls == [chunks[:1], chunks[1:4]]  # 1,000 iterations by 200
    pool.call = real

    def key_of(chunk):
        return open_key(app.state.settings, source, None, 0, [loop["id"], chunk], "auto", [loop["id"]])

    # a click on a chunk of the second batch while the first runs does not wait for the first's run
    waited = [[c for c in chunks if key_of(c) in keys] for keys in pending]
    assert waited == [chunks[:1], chunks[1:4]]

    r = c.post("/api/open", json={"source": source, "view": 0, "open": [loop["id"], chunks[0]],
                                  "fingerprint": run["fingerprint"], "had": [loop["id"]]})
    assert r.status_code == 200 and r.headers["X-Gradviz-Cache"] == "hit"
    assert f'data-part="{chunks[0]}"' in r.json()["views"][0]["svg"]
