"""POST /api/layout: a run's graph drawn again at another level from the answer's own layout input,
without running the program; hostile input is refused with a 4xx or drawn as plain text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from app.examples import EXAMPLES
from app.schemas import LAYOUT_MAX_VIEWS

from .helpers import svg_ids

NODE_KEYS = ("id", "kind", "name", "shape", "requires_grad", "is_param", "is_output", "is_saved",
             "is_constant", "var", "module", "part", "label", "sym")
EDGE_KEYS = ("id", "source", "target", "shape", "needs_grad")
PART_KEYS = ("id", "kind", "label", "type_name", "parent", "view", "size", "key", "iterations")


def example(example_id: str) -> dict:
    return next(e for e in EXAMPLES if e["id"] == example_id)


def answer(client, example_id: str, fold: str = "auto") -> dict:
    ex = example(example_id)
    r = client.post("/api/run", json={"source": ex["source"], "variables": ex["variables"], "fold": fold})
    assert r.status_code == 200, r.text
    return r.json()


def layout_body(resp: dict, fold: str = "auto", parts: bool = True) -> dict:
    """What the page sends: the fields the drawing reads, from the run's answer (``parts`` False:
    what an older page sent, without the parts)."""
    body = {
        "nodes": [{k: n[k] for k in NODE_KEYS if k in n and (parts or k != "part")}
                  for n in resp["graph"]["nodes"]],
        "edges": [{k: e[k] for k in EDGE_KEYS if k in e} for e in resp["graph"]["edges"]],
        "views": [{"nodes": v["nodes"], "edges": v["edges"]} for v in resp["views"]],
        "fold": fold,
    }
    if parts:
        body["parts"] = [dict({k: p[k] for k in PART_KEYS if p.get(k) is not None}, first=p["span"][0])
                         for p in resp["parts"]]
    return body


def boxes(drawing: dict, resp: dict) -> list[dict]:
    """The closed parts a drawing shows as boxes."""
    return [p for p in resp["parts"] if p["view"] == drawing["index"] and p["id"] not in drawing["open"]]


def small() -> dict:
    return {"nodes": [{"id": 0, "kind": "leaf", "name": "x", "shape": [], "requires_grad": True},
                      {"id": 1, "kind": "op", "name": "MulBackward0", "shape": [], "requires_grad": True}],
            "edges": [{"id": 0, "source": 0, "target": 1, "shape": [], "needs_grad": True}],
            "views": [{"nodes": [0, 1], "edges": [0]}]}


def test_same_level_gives_the_run_answers_drawings(client):
    resp = answer(client, "accumulation")
    r = client.post("/api/layout", json=layout_body(resp))
    assert r.status_code == 200, r.text
    views = r.json()["views"]
    assert [v["index"] for v in views] == list(range(len(resp["views"])))
    assert [v["svg"] for v in views] == [v["svg"] for v in resp["views"]]


def test_module_level_without_running_again(client):
    from app.drawing.layout import CACHE

    resp = answer(client, "mlp")
    assert not resp["views"][0]["folded"]
    folded = client.post("/api/layout", json=layout_body(resp, "module")).json()["views"][0]
    assert folded["folded"] and {p["label"] for p in boxes(folded, resp)} == {"fc1", "fc2"}
    assert all(f'id="{p["id"]}"' in folded["svg"] for p in boxes(folded, resp))
    # the same drawing the run route makes at that level, and asking again draws nothing new
    assert folded["svg"] == answer(client, "mlp", "module")["views"][0]["svg"]
    renders = CACHE.renders
    again = client.post("/api/layout", json=layout_body(resp, "module")).json()["views"][0]
    assert again == folded and CACHE.renders == renders
    ops = client.post("/api/layout", json=layout_body(resp, "op")).json()["views"][0]
    assert not ops["folded"] and not boxes(ops, resp)


def test_a_layout_input_without_parts_folds_by_module_path(client):
    resp = answer(client, "mlp")
    folded = client.post("/api/layout", json=layout_body(resp, "module", parts=False)).json()["views"][0]
    assert folded["folded"] and folded["open"] == []
    ids = svg_ids(folded["svg"])
    fc1 = [n["id"] for n in resp["graph"]["nodes"] if n["kind"] == "op" and n.get("module") == "fc1"]
    assert fc1 and not any(f"n{nid}" in ids for nid in fc1)


def test_down_draws_top_to_bottom(client):
    resp = answer(client, "neuron")
    wide = client.post("/api/layout", json=layout_body(resp)).json()["views"][0]["svg"]
    body = dict(layout_body(resp), direction="down")
    tall = client.post("/api/layout", json=body).json()["views"][0]["svg"]

    def size(svg):
        box = ET.fromstring(svg).get("viewBox").split()
        return float(box[2]), float(box[3])

    (w1, h1), (w2, h2) = size(wide), size(tall)
    assert h2 > 2 * h1 and w2 < w1, (size(wide), size(tall))  # (the legend below sets a least width)
    assert svg_ids(wide) == svg_ids(tall)


@pytest.mark.parametrize("change, where", [
    (lambda b: b["nodes"][0].update(id="0"), "nodes.0.id"),  # an id is a JSON integer, not a string
    (lambda b: b["nodes"][0].update(id=0.0), "nodes.0.id"),
    (lambda b: b["nodes"][0].update(id=-1), "nodes.0.id"),
    (lambda b: b["nodes"][0].update(requires_grad="yes"), "requires_grad"),
    (lambda b: b["nodes"][0].update(value=[1, 2]), "value"),  # unknown fields are refused
    (lambda b: b.update(svg="<svg/>"), "svg"),
    (lambda b: b["nodes"][0].update(kind="script"), "kind"),
    (lambda b: b["nodes"][0].update(name="a\nb"), "name"),  # no control characters
    (lambda b: b["nodes"][0].update(name="x" * 201), "name"),
    (lambda b: b["nodes"][0].update(shape=[1] * 17), "shape"),
    (lambda b: b["nodes"][0].update(shape=[-2]), "shape"),
    (lambda b: b["nodes"].append(dict(b["nodes"][0])), "unique"),
    (lambda b: b["edges"][0].update(source=7), "edge 0"),
    (lambda b: b["views"][0].update(nodes=[0, 1, 9]), "view 0"),
    (lambda b: b["views"][0].update(edges=[3]), "view 0"),
    (lambda b: b["views"][0].update(nodes=[1]), "outside the view"),
    (lambda b: b.update(views=[]), "views"),
    (lambda b: b.update(views=b["views"] * (LAYOUT_MAX_VIEWS + 1)), "views"),
    (lambda b: b.update(fold="all"), "fold"),
    (lambda b: b.update(direction="up"), "direction"),
])
def test_hostile_input_is_refused_with_the_field(client, change, where):
    body = small()
    change(body)
    r = client.post("/api/layout", json=body)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["type"] == "ValidationError" and where in err["message"], err


def test_too_large_a_body_is_refused(client):
    body = small()
    body["nodes"] += [{"id": i, "kind": "leaf", "name": "x" * 150, "shape": [1], "requires_grad": True}
                      for i in range(2, 2000)]
    r = client.post("/api/layout", json=body)
    assert r.status_code == 413 and r.json()["error"]["type"] == "RequestTooLarge"


def test_texts_are_drawn_as_plain_text(client):
    body = small()
    nasty = '"]; x -> y [label="<b>\\N</b>" & </text><script>alert(1)</script>'
    body["nodes"][1]["name"] = nasty  # an op's name is drawn in full
    body["nodes"][0]["name"] = "\\\\\"{}|<>"
    r = client.post("/api/layout", json=body)
    assert r.status_code == 200, r.text
    svg = r.json()["views"][0]["svg"]
    root = ET.fromstring(svg)  # well-formed XML: nothing broke out of its text
    assert not [el for el in root.iter() if el.tag.endswith("script")]
    assert {"n0", "n1", "e0"} <= svg_ids(svg)
    texts = "".join(el.text or "" for el in root.iter() if el.tag.endswith("text"))
    assert nasty in texts and '\\\\"{}|<>' in texts  # shown as the characters they are made of


def test_not_json_and_wrong_method(client):
    r = client.post("/api/layout", content=b"{nodes:", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["type"] == "JSONDecodeError"
    assert client.get("/api/layout").status_code == 405


def test_busy_dot_slots_cut_the_drawing_at_the_budget(client, monkeypatch):
    from app.drawing import layout

    budget = client.app.state.settings.layout_budget_s
    monkeypatch.setattr(client.app.state.settings, "layout_budget_s", 0.1)
    layout.CACHE.clear()  # a structure to lay out, not one the cache has
    sem = layout.DOT_SLOTS._sem
    taken = 0
    while sem.acquire(blocking=False):  # every dot slot drawing someone else's graph
        taken += 1
    try:
        r = client.post("/api/layout", json=small())
    finally:
        for _ in range(taken):
            sem.release()
    assert r.status_code == 200
    assert [v["undrawn"] for v in r.json()["views"]] == ["time_budget"]
    # the cut is not cached: the next request draws it (with the usual budget: on a busy machine
    # one `dot` can take longer than 0.1 s)
    monkeypatch.setattr(client.app.state.settings, "layout_budget_s", budget)
    again = client.post("/api/layout", json=small()).json()["views"]
    assert [v["undrawn"] for v in again] == [None]
