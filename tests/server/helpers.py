"""Shared checks for tests/server: record a trace directly, and check a response agrees with itself."""

from __future__ import annotations

import re

from app import schemas
from app.drawing.layout import LayoutSettings, draw_response
from app.worker.serialize import serialize_trace
from engine import trace as T


def record(fn, output=None) -> dict:
    """Run ``fn(rec)`` under a recorder; return the serialized, drawn response (validated)."""
    with T.recording() as rec:
        fn(rec)
    return finish(rec.trace)


def finish(trace, settings: LayoutSettings | None = None, cache=None) -> dict:
    d = serialize_trace(trace)
    d.update(variables={}, stdout="", error=None, svg="")
    if cache is None:
        draw_response(d, settings)
    else:
        draw_response(d, settings, cache)
    schemas.RunResponse.model_validate(d)
    return d


_ELEMENT_ID = re.compile(r'<g id="([nemps]\d+(?:-g\d+)?)"')


def svg_ids(svg: str) -> set[str]:
    """Element ids of node, edge, part, segment and ghost groups in an SVG."""
    return set(_ELEMENT_ID.findall(svg))


def assert_consistent(resp: dict) -> None:
    """Graph, steps and drawings agree: every reference names something that exists; the answer
    fits the schema (the route writes its JSON without re-validating it)."""
    schemas.RunResponse.model_validate(resp)
    nodes = {n["id"]: n for n in resp["graph"]["nodes"]}
    edges = {e["id"]: e for e in resp["graph"]["edges"]}
    assert len(nodes) == len(resp["graph"]["nodes"]), "duplicate node ids"
    for e in edges.values():
        assert e["source"] in nodes and e["target"] in nodes, f"edge {e['id']} joins unknown nodes"
        assert nodes[e["target"]]["kind"] == "op"
    # an edge with an end hidden in a closed part is named by the views' links
    linked = {e: t for v in resp["views"] for ln in v.get("links", [])
              for e, t in zip(ln["edges"], ln["targets"])}
    for n in nodes.values():
        for eid in n.get("inputs", []):
            assert (eid in edges and edges[eid]["target"] == n["id"]) or linked.get(eid) == n["id"]
    for bp in resp["backward"]:
        assert bp["root"] in nodes
        assert 0 <= bp["view"] < len(resp["views"])
        view = resp["views"][bp["view"]]
        view_nodes = set(view["nodes"])
        for s in bp["steps"]:
            assert s["node"] in nodes, f"step {s['index']} names unknown node {s['node']}"
            # drawn in its view, or a node the answer holds with its data (a parameter) in a closed box,
            # whose gradient arrived by an edge inside the box
            part = nodes[s["node"]].get("part")
            boxed = s["node"] not in view_nodes
            assert not boxed or (part is not None and part not in view["open"]), s
            for f in s["received"] + s["sent"]:
                assert f["edge"] in edges or f["edge"] in linked or boxed
            assert s["is_sum"] == (len(s["received"]) > 1)
    parts = {p["id"]: p for p in resp.get("parts", [])}
    for v in resp["views"]:
        ids = svg_ids(v["svg"])
        opened = set(v["open"])
        in_segments = {e for members in v["segments"].values() for e in members}
        for nid in v["nodes"]:
            assert nid in nodes
            assert f"n{nid}" in ids, f"node {nid} is not drawn in view {v['index']}"
            part = nodes[nid].get("part")
            while part is not None:  # a shown node is in open parts only
                assert part in opened, f"node {nid} is shown inside the closed part {part}"
                part = parts[part]["parent"]
        for p in parts.values():  # a box, or an open loop's frame (an open module call is drawn inline)
            if p["view"] == v["index"] and (p["id"] not in opened or p["kind"] != "module"):
                assert p["id"] in ids, f"part {p['id']} is not drawn"
        for eid in v["edges"]:
            assert eid in edges
            assert f"e{eid}" in ids or eid in in_segments, f"edge {eid} is not drawn"
        for ln in v["links"]:
            assert all(e in in_segments or f"e{e}" in ids for e in ln["edges"]), "a link is not drawn"
