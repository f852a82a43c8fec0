"""app/drawing/layout.py: ids in the SVG, the structure-keyed cache (counted dot runs), folding, ghosts,
legend."""

import re

import engine as torch
from app.drawing.layout import (
    LayoutCache,
    LayoutSettings,
    draw_response,
    draw_view,
    layout_data,
    layout_input,
)
from app.drawing.unit_dot import write_dot
from app.drawing.units import plan_units
from app.folding.level import level
from app.schemas import LayoutInput
from app.worker.serialize import serialize_trace
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


def _texts(svg: str, kind: str) -> list[str]:
    groups = re.findall(rf'<g id="[^"]*" class="{kind}">(.*?)</g>', svg, re.S)
    return [t for g in groups for t in re.findall(r"<text[^>]*>([^<]*)</text>", g)]


def test_edges_show_their_shape_but_not_scalar():
    with T.recording() as rec:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        ((w * 3.0).sum() * 2.0).backward()  # [2] into the sum, a scalar out of it
    d = finish(rec.trace, cache=LayoutCache(8))
    edges = _texts(d["svg"], "edge")
    assert "[2]" in edges and "scalar" not in edges and len(d["graph"]["edges"]) >= 4
    assert any("scalar" in t for t in _texts(d["svg"], "node"))  # a node's own shape line stays


def test_same_structure_is_laid_out_once():
    cache = LayoutCache(8)
    first = finish(chain(0.5), cache=cache)
    assert cache.renders == 1
    second = finish(chain(-1.5), cache=cache)  # other values, same structure
    assert cache.renders == 1 and cache.hits == 1
    assert first["svg"] == second["svg"]  # same ids too (fresh trace, same order)
    finish(chain(0.5, steps=6), cache=cache)  # one more op: a new structure
    assert cache.renders == 2


def test_a_layout_made_by_other_code_is_not_reused(monkeypatch):
    import app.drawing.compose
    import app.drawing.drawn

    cache = LayoutCache(8)
    finish(chain(0.5), cache=cache)
    monkeypatch.setattr(app.drawing.compose, "code_digest", lambda: "another version")
    monkeypatch.setattr(app.drawing.drawn, "code_digest", lambda: "another version")
    finish(chain(0.5), cache=cache)  # (how an SVG is tidied may change while the DOT text does not)
    assert cache.renders == 2 and cache.hits == 0


def test_the_same_graph_drawn_again_is_the_kept_drawing_without_writing_dot_text(monkeypatch):
    import app.drawing.compose

    written = []
    monkeypatch.setattr(app.drawing.compose, "write_dot",
                        lambda u, *a, **k: written.append(u) or write_dot(u, *a, **k))
    cache = LayoutCache(64)
    first = finish(big_model_trace(5), cache=cache)
    pieces, renders = len(written), cache.renders
    assert pieces >= 1 and renders >= 1
    again = finish(big_model_trace(5), cache=cache)  # the same program run again
    assert len(written) == pieces and cache.renders == renders  # no DOT text written, nothing laid out
    keys = ("svg", "folded", "folds", "undrawn", "open", "segments")
    fields = [[{k: v[k] for k in keys} for v in d["views"]] for d in (first, again)]
    assert fields[0] == fields[1]
    finish(big_model_trace(6), cache=cache)  # another graph: drawn from its pieces
    assert len(written) > pieces


def test_a_view_drawn_with_a_note_is_not_kept_whole():
    cache = LayoutCache(8)
    d = finish(chain(0.1, steps=40), LayoutSettings(max_nodes=20), cache=cache)
    assert d["views"][0]["undrawn"] == "too_many_nodes"
    assert not [k for k in cache._items if k.startswith("drawing-")]
    finish(chain(0.1, steps=4), cache=cache)
    assert [k for k in cache._items if k.startswith("drawing-")]


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


def test_graphs_over_the_budget_fold_module_calls():
    trace = big_model_trace(70)
    d = finish(trace, cache=LayoutCache(8))
    assert_consistent(d)
    view = d["views"][0]
    boxes = [p for p in d["parts"] if p["id"] not in view["open"]]
    assert view["folded"] and len(boxes) == 70 and {p["type_name"] for p in boxes} == {"Linear"}
    ids = svg_ids(view["svg"])
    assert all(p["id"] in ids for p in boxes)
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    assert not any(n["kind"] == "op" and n.get("module") == "Linear" for n in nodes.values())  # in boxes
    assert len(nodes) < 300 and d["graph"]["omitted_ops"] == 0
    inputs = [n for n in nodes.values() if n["kind"] == "leaf" and not n["requires_grad"]]
    assert inputs and all(n["part"] is None for n in inputs)  # data stays visible


def test_small_graphs_are_not_folded():
    d = finish(big_model_trace(5), cache=LayoutCache(8))
    assert not d["views"][0]["folded"] and d["views"][0]["open"] == [p["id"] for p in d["parts"]]


def test_a_piece_with_too_many_nodes_gives_a_note_instead_of_a_layout():
    trace = chain(0.1, steps=40)
    d = finish(trace, LayoutSettings(max_nodes=20), cache=LayoutCache(8))
    assert "too many to draw" in d["svg"] and d["views"][0]["undrawn"] == "too_many_nodes"


def drawn_units(d: dict):
    data = layout_data(LayoutInput.model_validate(layout_input(d)))
    v = data["views"][0]
    lv = level(data["nodes"], data["edges"], data["parts"], v["nodes"], v["edges"], v["open"], v["links"])
    return data, plan_units(data["nodes"], data["edges"], data["parts"], lv)


def test_dot_text_has_no_values_and_uses_xlabels():
    d = finish(chain(0.123456), cache=LayoutCache(8))
    data, units = drawn_units(d)
    for u in units:
        write_dot(u, data["nodes"], data["parts"], {}, legend=True, max_lr_depth=24, nslimit_from=400)
        assert "0.123" not in u.dot
        assert "xlabel=" in u.dot and " label=scalar" not in u.dot
    again = draw_view(layout_data(LayoutInput.model_validate(layout_input(d))), 0, LayoutSettings(),
                      LayoutCache(8))
    assert svg_ids(again.svg) == svg_ids(d["views"][0]["svg"])


def test_cache_evicts_least_recently_used_by_count_and_size():
    cache = LayoutCache(2, max_chars=10)
    cache.put("a", "1234")
    cache.put("b", "5678")
    assert cache.get("a") == "1234"  # a is now the most recent
    cache.put("c", "90")
    assert len(cache) == 2 and cache.get("b") is None and cache.get("a") == "1234"
    cache.put("d", "x" * 9)  # over the size budget: only the newest stays
    assert len(cache) == 1 and cache.get("d") and cache.chars == 9


def test_entries_with_a_time_to_live_expire(monkeypatch):
    from app.drawing import cache as layout_cache

    now = [100.0]
    monkeypatch.setattr(layout_cache.time, "monotonic", lambda: now[0])
    cache = LayoutCache(8)
    cache.put("a", "kept")
    cache.put("b", "brief", ttl_s=5)
    now[0] += 4
    assert cache.get("b") == "brief"
    now[0] += 2
    assert cache.get("b") is None and cache.get("a") == "kept"


# ---- loops, ghosts, frames ----------------------------------------------------------------------------
def shared_weight(steps: int):
    """An unrolled RNN's shape: one weight read by every step of a loop (recorded through the runner
    so the loop is a scope of the trace)."""
    from engine.runner import run_program

    src = (f"w = torch.tensor(0.9, requires_grad=True)\nh = torch.tensor(0.5, requires_grad=True)\n"
           f"for i in range({steps}):\n    h = torch.tanh(h * w)\nh.backward()\n")
    result = run_program(src)
    assert result.error is None
    return result.trace


def drawn(trace, fold="auto", cache=None):
    d = serialize_trace(trace, fold=fold)
    d.update(variables={}, stdout="", error=None, svg="")
    draw_response(d, None, cache if cache is not None else LayoutCache(64))  # (an empty cache is falsy)
    assert_consistent(d)
    return d


def test_a_long_loop_is_one_box_with_its_iteration_count():
    d = drawn(shared_weight(300))
    view = d["views"][0]
    (loop,) = d["parts"]
    assert loop["kind"] == "loop" and loop["iterations"] == 300 and loop["label"] == "for i in range(300)"
    assert view["open"] == [] and view["folded"]
    leaves = {n["var"] for n in d["graph"]["nodes"] if n["kind"] == "leaf"}
    assert leaves == {"w", "h"}  # the leaves made before the loop
    (out,) = [n for n in d["graph"]["nodes"] if n["kind"] == "op"]
    assert out["is_output"] and out["part"] is None  # the output is always drawn
    assert "×300" in view["svg"] and f'id="{loop["id"]}"' in view["svg"]
    (link,) = [ln for ln in view["links"] if ln["source"] == f"n{_node(d, 'w')}"]
    assert link["target"] == loop["id"] and len(link["edges"]) == 300


def _node(d: dict, var: str) -> int:
    return next(n["id"] for n in d["graph"]["nodes"] if n["var"] == var)


def test_an_open_loop_draws_its_shared_weight_as_a_ghost_beside_each_use():
    cache = LayoutCache(64)
    d = drawn(shared_weight(300), {0: ["p0"]}, cache)
    view = d["views"][0]
    svg = view["svg"]
    w = _node(d, "w")
    ghosts = re.findall(rf'<g id="n{w}-g\d+"', svg)
    assert len(ghosts) == 300  # one copy beside each of the 300 multiplications
    assert svg.count(f'<g id="n{w}"') == 1  # the real node once
    assert 'class="graph unit"' in svg and 'data-part="p0"' in svg  # the loop's frame holds its drawing
    # every multiplication reads w through a ghost: its edge is drawn there, not from w itself
    muls = [n for n in d["graph"]["nodes"] if n["name"] == "MulBackward0"]
    edges = {e["id"]: e for e in d["graph"]["edges"]}
    into_muls = [e for e in edges.values() if e["source"] == w]
    assert len(muls) == 300 and len(into_muls) == 300
    assert all(f'<g id="e{e["id"]}"' in svg for e in into_muls)
    renders = cache.renders
    drawn(shared_weight(300), {0: ["p0"]}, cache)  # the same structure again: no dot run
    assert cache.renders == renders


def test_the_gradients_into_the_ghosts_add_up_at_the_real_leaf():
    trace = shared_weight(300)
    d = drawn(trace, {0: ["p0"]})
    w = _node(d, "w")
    (bp,) = d["backward"]
    leaf = next(s for s in bp["steps"] if s["node"] == w)
    assert leaf["is_sum"] and leaf["received_count"] == 300 and len(leaf["received"]) == 128
    flows = next(s for s in trace.passes[0].steps if s.node == w).received
    kept = [f["edge"] for f in leaf["received"]]
    assert kept == [f.edge for f in flows[:64] + flows[-64:]]  # both ends of the sum, in order
    total = sum(float(f.grad) for f in flows)
    assert abs(total - leaf["grad_after"]["data"]) < 1e-5 * max(1.0, abs(total))


def test_a_loop_with_many_iterations_opens_into_chunks_and_a_chunk_into_its_iterations():
    trace = shared_weight(1000)
    d = drawn(trace, {0: ["p0"]})
    chunks = [p for p in d["parts"] if p["kind"] == "chunk"]
    assert len(chunks) >= 3 and all(p["parent"] == "p0" for p in chunks)
    assert sum(p["iterations"] for p in chunks) == 1000
    assert chunks[0]["label"].startswith("#1–#")
    first = chunks[0]["id"]
    d2 = drawn(trace, {0: ["p0", first]})
    shown = {n["id"] for n in d2["graph"]["nodes"]}
    assert len(shown) == chunks[0]["size"] + 3  # its iterations' nodes; w, h and the output
    assert f'data-part="{first}"' in d2["views"][0]["svg"]


def test_the_chunks_of_a_loop_open_at_every_op_are_laid_out_once_per_structure():
    # 1,000 iterations in chunks of 200 (400 ops and a ghost of w beside each multiplication):
    # #201–#400, #401–#600 and #601–#800 have labels with as many digits, so they are one layout;
    # the first (across #10 and #100) and the last (across #1000, ending at the output) are their
    # own; each chunk shows its own labels
    cache = LayoutCache(64, 2**28)
    d = drawn(shared_weight(1000), "op", cache)
    chunks = [p for p in d["parts"] if p["kind"] == "chunk"]
    assert [p["label"] for p in chunks] == [f"#{a + 1}–#{a + 200}" for a in range(0, 1000, 200)]
    assert all(p["open"] for p in chunks)
    assert cache.renders == 5  # the view, the loop and 3 of the 5 chunks
    svg = d["views"][0]["svg"]
    labels = [n["label"] for n in d["graph"]["nodes"] if n["kind"] == "op"]
    assert "MulBackward0 #1000" in labels and all(f">{label}</text>" in svg for label in labels)
    assert ">MulBackward0 #000<" not in svg and "h₀₀₀" not in svg


def test_a_drawing_shows_the_same_text_as_one_laid_out_with_its_own_labels(monkeypatch):
    from app.drawing import compose, unit_dot

    trace = shared_weight(120)
    neutral = drawn(trace, {0: ["p0"]})["views"][0]["svg"]
    written = unit_dot.write_dot
    monkeypatch.setattr(compose, "write_dot", lambda *a, **k: written(*a, **{**k, "neutral": False}))
    assert drawn(trace, {0: ["p0"]})["views"][0]["svg"] == neutral  # every digit is as wide as 0


# ---- a loop whose results are summed after it ------------------------------------------------------
SUMMED = "sum(torch.tanh(a * k) for k in range(100))"


def summed_open():
    """The expression's answer with its loop open, drawn (as POST /api/open answers it)."""
    from app.worker.execute import run_and_serialize

    variables = {"a": {"value": 0.3, "requires_grad": True}}
    (loop,) = run_and_serialize(SUMMED, variables)["response"]["parts"]
    resp = run_and_serialize(SUMMED, variables, {0: [loop["id"]]})["response"]
    draw_response(resp, cache=LayoutCache(8))
    return resp


def _text_y(svg: str, element: str) -> float:
    """The y of the first text line of the group with id ``element``."""
    at = svg.index(f'<g id="{element}" ')
    return float(re.search(r'<text[^>]* y="(-?[\d.]+)"', svg[at:]).group(1))


def test_the_results_of_a_loop_summed_after_it_leave_by_a_ghost_beside_each_sum():
    # 100 edges from the open loop's frame to 100 sums one below the other would have dot route
    # each across the ranks between (16 s for this 402-node drawing): each starts at a ghost instead
    resp = summed_open()
    nodes = {n["id"]: n for n in resp["graph"]["nodes"]}
    edges = resp["graph"]["edges"]
    tanh = [n["id"] for n in nodes.values() if n.get("op") == "tanh"]
    svg = resp["views"][0]["svg"]
    ids = svg_ids(svg)
    assert len(tanh) == 100
    assert all(f"n{t}-g0" in ids and f"n{t}" in ids for t in tanh)  # drawn in the loop, and beside its sum
    into_sums = [e for e in edges if e["source"] in tanh and nodes[e["target"]].get("op") == "add"]
    # sum() starts from 0: 100 adds, each reading one result
    assert len(into_sums) == 100 and all(f"e{e['id']}" in ids for e in into_sums)  # each edge drawn as itself


def test_independent_iterations_of_an_open_loop_are_drawn_row_by_row():
    # each iteration's mul and tanh on the row of its own inputs: network simplex cut short (nslimit)
    # slid the columns of this 400-element loop apart, so every edge crossed the others
    resp = summed_open()
    svg = resp["views"][0]["svg"]
    muls = sorted(n["id"] for n in resp["graph"]["nodes"] if n.get("op") == "mul")
    rows = []
    for m in muls:
        t = next(e["target"] for e in resp["graph"]["edges"] if e["source"] == m)
        assert abs(_text_y(svg, f"n{m}") - _text_y(svg, f"n{t}")) < 12  # the same row
        rows.append(_text_y(svg, f"n{m}"))
    assert rows == sorted(rows) or rows == sorted(rows, reverse=True)  # in iteration order
