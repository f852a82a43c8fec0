"""app/folding/parts.py and app/folding/level.py: the parts of a view found from the trace's scopes, the
open set chosen for a budget, and what a view shows at an open set."""

from __future__ import annotations

import pytest

from app.folding.level import choose_open, level, module_level
from app.folding.parts import OPEN_MAX, view_parts
from app.folding.views import build_views, view_edges
from engine.runner import run_program


def parts_of(src: str, open_max: int = OPEN_MAX):
    result = run_program(src)
    assert result.error is None, result.error
    trace = result.trace
    views, _ = build_views(trace)
    v = views[0]
    roots = [trace.passes[p].root for p in v.passes]
    vp = view_parts(trace, 0, v.nodes, view_edges(trace, v.nodes), open_max=open_max, outputs=roots)
    return trace, v, vp


def inside(vp, pid) -> set[int]:
    """Every node inside part ``pid``, at any depth."""
    out = set(vp.parts[pid].nodes)
    for c in vp.parts[pid].children:
        out |= inside(vp, c)
    return out


def check_membership(vp, view_nodes) -> None:
    """Each node is a direct member of one part (or of the view), and span and outside name
    exactly the nodes inside each part (what the page reads for nodes it knows by id only)."""
    direct = list(vp.nodes) + [n for p in vp.parts.values() for n in p.nodes]
    assert sorted(direct) == sorted(view_nodes)
    for pid, p in vp.parts.items():
        members = inside(vp, pid)
        lo, hi = p.span
        assert members == {n for n in view_nodes if lo <= n <= hi} - set(p.outside), pid
        assert p.size == len(p.nodes) + len(p.children)
        for n in p.nodes:
            assert vp.node_part[n] == pid


SHARED = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range({n}):
    h = torch.tanh(h * w)
h.backward()
"""


def test_a_loop_is_a_part_and_what_it_shares_stays_outside():
    trace, v, vp = parts_of(SHARED.format(n=50))
    check_membership(vp, v.nodes)
    (loop,) = vp.parts.values()
    assert loop.kind == "loop" and loop.iterations == 50 and loop.ops == 99  # the output is outside
    names = {trace.nodes[n].name for n in vp.nodes}
    assert names == {"w", "h"} and len(vp.nodes) == 3  # w, h and the output (the last tanh)
    # each iteration's first node: the page finds a node's iteration by it
    for nid in loop.nodes:
        s = trace.nodes[nid].scope
        start = max(i for i, (first, _) in enumerate(loop.iters) if first <= nid)
        assert loop.iters[start][1] == trace.scopes[s].index


def test_many_iterations_are_grouped_in_chunks_that_show_at_most_open_max():
    trace, v, vp = parts_of(SHARED.format(n=700), open_max=20)
    check_membership(vp, v.nodes)
    loop = vp.parts[vp.children[0]]
    chunks = [vp.parts[c] for c in loop.children]
    assert all(c.kind == "chunk" and c.size <= 20 for c in chunks)
    assert loop.size <= 20  # 700 iterations of two ops: chunks of chunks
    inner = [vp.parts[g] for c in chunks for g in c.children]  # the chunks inside the chunks
    assert inner and all(c.kind == "chunk" for c in inner)
    assert sum(c.iterations for c in inner) == sum(c.iterations for c in chunks) == 700
    # each iteration draws its two ops and a ghost of w beside the multiplication: 6 per chunk
    assert inner[0].label == "#1–#6" and inner[0].first_iteration == 0 and chunks[0].label == "#1–#60"
    assert all(c.size + c.iterations <= 20 for c in inner)


def test_long_straight_code_is_grouped_in_segments():
    src = "x = torch.tensor(1.0, requires_grad=True)\nh = x\n" + "h = h * 1.01\n" * 120 + "h.backward()\n"
    trace, v, vp = parts_of(src, open_max=50)
    check_membership(vp, v.nodes)
    assert vp.size() <= 50 and {p.kind for p in vp.parts.values()} == {"segment"}
    first = vp.parts[vp.children[0]]
    assert first.label.startswith("L") and "–L" in first.label


def test_layers_fold_into_their_calls_with_their_parameters_and_the_same_key():
    src = ("torch.manual_seed(0)\nmodel = nn.Sequential(*[nn.Linear(3, 3) for _ in range(4)])\n"
           "x = torch.randn(2, 3)\nmodel(x).sum().backward()\n")
    trace, v, vp = parts_of(src)
    check_membership(vp, v.nodes)
    (seq,) = [p for p in vp.parts.values() if p.type_name == "Sequential"]
    layers = [vp.parts[c] for c in seq.children]
    assert [p.label for p in layers] == ["0", "1", "2", "3"]
    assert len({p.key for p in layers}) == 1  # the same structure four times
    for p in layers:
        names = {trace.nodes[n].name for n in p.nodes if trace.nodes[n].kind == "leaf"}
        assert names == {f"{p.label}.weight", f"{p.label}.bias"}
    x = next(n for n in v.nodes if trace.nodes[n].name == "x")
    assert vp.node_part[x] is None  # the input stays in view


def meta(vp) -> dict:
    return {pid: {"parent": p.parent, "size": p.size, "key": p.key, "kind": p.kind}
            for pid, p in vp.parts.items()}


def test_the_budget_opens_outer_parts_first_and_equal_layers_together():
    src = ("torch.manual_seed(0)\nmodel = nn.Sequential(*[nn.Linear(3, 3) for _ in range(4)])\n"
           "model(torch.randn(2, 3)).sum().backward()\n")
    _, _, vp = parts_of(src)
    m = meta(vp)
    seq = vp.children[0]
    layers = vp.parts[seq].children
    assert choose_open(m, vp.children, vp.size(), budget=vp.size() + 3) == {seq}  # 4 boxes, not 5 ops each
    assert choose_open(m, vp.children, vp.size(), budget=100) == {seq, *layers}
    almost = vp.size() + 3 + 4 * (vp.parts[layers[0]].size - 1) - 1
    assert choose_open(m, vp.children, vp.size(), budget=almost) == {seq}  # all four or none
    assert module_level(m) == {seq}


def test_a_chunked_loop_stays_closed_unless_chunks_are_asked_for():
    _, _, vp = parts_of(SHARED.format(n=400), open_max=100)
    m = meta(vp)
    assert choose_open(m, vp.children, vp.size(), budget=10_000) == set()
    assert vp.children[0] in choose_open(m, vp.children, vp.size(), budget=10_000, chunks=True)


@pytest.mark.parametrize("opened", [set(), {"p0"}])
def test_level_shows_open_parts_and_links_the_edges_of_closed_ones(opened):
    trace, v, vp = parts_of(SHARED.format(n=20))
    nodes = {n: {"part": vp.node_part[n]} for n in v.nodes}
    edges = {e.id: {"source": e.source, "target": e.target, "shape": list(e.shape),
                    "needs_grad": e.needs_grad} for e in trace.edges}
    parts = {pid: {"parent": p.parent} for pid, p in vp.parts.items()}
    eids = view_edges(trace, v.nodes)
    lv = level(nodes, edges, parts, sorted(v.nodes), eids, opened)
    if not opened:
        assert lv.boxes == ["p0"] and len(lv.nodes) == 3
        w = next(n for n in v.nodes if trace.nodes[n].name == "w")
        (into,) = [ln for ln in lv.links if ln.source == f"n{w}"]
        assert into.target == "p0" and len(into.edges) == 20 == len(into.targets)
        members = {e for ln in lv.links for e in ln.edges} | set(lv.edges)
        crossing = {e for e in eids if nodes[edges[e]["source"]]["part"] != nodes[edges[e]["target"]]["part"]}
        assert crossing <= members  # every edge that crosses the box is drawn as part of a link
    else:
        assert lv.open == ["p0"] and lv.links == [] and sorted(lv.nodes) == sorted(v.nodes)
        assert sorted(lv.edges) == sorted(eids)
