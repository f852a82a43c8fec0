"""app/layout.py: ids in the SVG, the structure-keyed cache (counted dot runs), folding, legend."""

import engine as torch
from app.layout import LayoutCache, LayoutSettings, draw_view, plan_view
from engine import nn
from engine import trace as T

from .helpers import assert_consistent, finish, svg_ids


def chain(value: float, steps: int = 5):
    with T.recording() as rec:
        x = torch.tensor(value, requires_grad=True)
        rec.name_tensor(x, "x")
        h = x
        for _ in range(steps):
            h = torch.tanh(h * 2.0)
        h.backward()
    return rec.trace


def test_every_node_and_edge_carries_its_id():
    d = finish(chain(0.5), cache=LayoutCache(8))
    assert_consistent(d)
    ids = svg_ids(d["svg"])
    assert {f"n{n['id']}" for n in d["graph"]["nodes"]} <= ids
    assert {f"e{e['id']}" for e in d["graph"]["edges"]} <= ids
    assert "<title>" not in d["svg"] and d["svg"].startswith("<svg")
    assert "parameter leaf" in d["svg"] and "saved for backward" in d["svg"]  # the legend


def test_same_structure_is_laid_out_once():
    cache = LayoutCache(8)
    first = finish(chain(0.5), cache=cache)
    assert cache.renders == 1
    second = finish(chain(-1.5), cache=cache)  # other values, same structure
    assert cache.renders == 1 and cache.hits == 1
    assert first["svg"] == second["svg"]  # same ids too (fresh trace, same order)
    finish(chain(0.5, steps=6), cache=cache)  # one more op: a new structure
    assert cache.renders == 2


def test_cached_svg_gets_the_new_ids():
    cache = LayoutCache(8)

    def iterations(rec):
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        rec.name_tensor(w, "w")
        for k in range(3):
            (w * float(k + 1)).sum().backward()

    with T.recording() as rec:
        iterations(rec)
    d = finish(rec.trace, cache=cache)
    assert_consistent(d)
    assert len(d["views"]) == 3
    assert cache.renders == 1 and cache.hits == 2  # three iterations, one layout
    svgs = [v["svg"] for v in d["views"]]
    assert len(set(svgs)) == 3  # same drawing, different ids


def big_model_trace(layers: int):
    with T.recording() as rec:
        torch.manual_seed(0)
        mods = [nn.Linear(3, 3) for _ in range(layers)]
        h = torch.randn(2, 3)
        for m in mods:
            h = torch.tanh(m(h))
        h.sum().backward()
    return rec.trace


def test_graphs_over_the_threshold_fold_module_calls():
    trace = big_model_trace(70)
    d = finish(trace, cache=LayoutCache(8))
    assert len(d["graph"]["nodes"]) > 300  # the JSON keeps the full graph
    view = d["views"][0]
    assert view["folded"] and len(view["folds"]) == 70
    assert_consistent(d)
    ids = svg_ids(view["svg"])
    folded = {m for f in view["folds"] for m in f["nodes"]}
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    assert all(nodes[m]["module"] == "Linear" for f in view["folds"] for m in f["nodes"]
               if nodes[m]["kind"] == "op")
    assert not any(f"n{m}" in ids for m in folded)
    inputs = [n for n in nodes.values() if n["kind"] == "leaf" and not n["requires_grad"]]
    assert all(n["id"] not in folded for n in inputs)  # data stays visible


def test_small_graphs_are_not_folded():
    d = finish(big_model_trace(5), cache=LayoutCache(8))
    assert not d["views"][0]["folded"] and d["views"][0]["folds"] == []


def test_too_many_nodes_gives_a_note_instead_of_a_layout():
    trace = chain(0.1, steps=40)
    d = finish(trace, LayoutSettings(max_nodes=20), cache=LayoutCache(8))
    assert "too many to draw" in d["svg"]


def test_dot_text_has_no_values_and_uses_xlabels():
    d = finish(chain(0.123456), cache=LayoutCache(8))
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    edges = {e["id"]: e for e in d["graph"]["edges"]}
    v = d["views"][0]
    plan = plan_view(nodes, edges, v["nodes"], v["edges"], LayoutSettings())
    assert "0.123" not in plan.dot
    assert "xlabel=" in plan.dot and " label=scalar" not in plan.dot
    again = draw_view(nodes, edges, v["nodes"], v["edges"], LayoutSettings(), LayoutCache(8))
    assert svg_ids(again.svg) == svg_ids(v["svg"])


def test_cache_evicts_least_recently_used_by_count_and_size():
    cache = LayoutCache(2, max_chars=10)
    cache.put("a", "1234")
    cache.put("b", "5678")
    assert cache.get("a") == "1234"  # a is now the most recent
    cache.put("c", "90")
    assert len(cache) == 2 and cache.get("b") is None and cache.get("a") == "1234"
    cache.put("d", "x" * 9)  # over the size budget: only the newest stays
    assert len(cache) == 1 and cache.get("d") and cache.chars == 9
