"""Shared checks for tests/server: record a trace directly, and check a response agrees with itself."""

from __future__ import annotations

import re

from app import schemas
from app.layout import LayoutSettings, draw_response
from app.serialize import serialize_trace
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


_ELEMENT_ID = re.compile(r'<g id="([nem]\d+)"')


def svg_ids(svg: str) -> set[str]:
    """Element ids of node, edge and folded-module groups in an SVG."""
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
    for n in nodes.values():
        for eid in n.get("inputs", []):
            assert eid in edges and edges[eid]["target"] == n["id"]
    for bp in resp["backward"]:
        assert bp["root"] in nodes
        assert 0 <= bp["view"] < len(resp["views"])
        view_nodes = set(resp["views"][bp["view"]]["nodes"])
        for s in bp["steps"]:
            assert s["node"] in nodes, f"step {s['index']} names unknown node {s['node']}"
            assert s["node"] in view_nodes
            for f in s["received"] + s["sent"]:
                assert f["edge"] in edges
            assert s["is_sum"] == (len(s["received"]) > 1)
    for v in resp["views"]:
        ids = svg_ids(v["svg"])
        fold_of = {m: f["id"] for f in v["folds"] for m in f["nodes"]}
        folded = set(fold_of)
        for nid in v["nodes"]:
            assert nid in nodes
            assert f"n{nid}" in ids or nid in folded, f"node {nid} is not drawn in view {v['index']}"
        for f in v["folds"]:
            assert f["id"] in ids
        for eid in v["edges"]:
            assert eid in edges
            e = edges[eid]
            inside = e["source"] in folded and fold_of[e["source"]] == fold_of.get(e["target"])
            if not inside:
                assert f"e{eid}" in ids, f"edge {eid} is not drawn"
