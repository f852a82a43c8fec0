"""A deep stack of identical layers (a 20-layer ``nn.Sequential`` MLP) folds into one box that
says what it repeats, closed at every level but "op", that opens like a loop (its layers as boxes,
then each layer); the steps and gradients are the same as when everything is drawn."""

from __future__ import annotations

import re

from app.folding.level import is_repeat
from app.folding.plan import open_set

from .helpers import svg_ids
from .test_open import opened
from .test_parts import check_membership, parts_of

MLP = """layers = []
for _ in range({n}):
    layers += [nn.Linear(8, 8), nn.ReLU()]
net = nn.Sequential(*layers, nn.Linear(8, 1))
x = torch.randn(4, 8)
loss = net(x).pow(2).mean()
loss.backward()
print(net[0].weight.grad.sum().item())
"""
DEEP = MLP.format(n=20)


def test_a_run_of_identical_layers_is_one_loop_of_its_repetitions():
    trace, v, vp = parts_of(DEEP)
    check_membership(vp, v.nodes)
    (seq,) = [p for p in vp.parts.values() if p.type_name == "Sequential"]
    (rep,) = [p for p in vp.parts.values() if p.kind == "loop"]
    assert rep.parent == seq.id and rep.type_name == "Linear → ReLU" and rep.iterations == 20
    assert seq.children == [rep.id, seq.children[1]] and vp.parts[seq.children[1]].label == "40"
    layers = [vp.parts[c] for c in rep.children]
    assert [p.label for p in layers] == [str(k) for k in range(40)]  # in the order they ran
    assert [p.type_name for p in layers] == ["Linear", "ReLU"] * 20
    for p in layers[::2]:  # each layer keeps its own parameters
        names = {trace.nodes[n].name for n in p.nodes if trace.nodes[n].kind == "leaf"}
        assert names == {f"{p.label}.weight", f"{p.label}.bias"}
    # each repetition starts where its Linear starts: the page tells a node's repetition by it
    for k, (first, index) in enumerate(rep.iters):
        assert index == k and min(n for c in layers[2 * k:2 * k + 2] for n in inside_all(vp, c.id)) == first
    meta = {pid: {"parent": p.parent, "kind": p.kind, "type_name": p.type_name}
            for pid, p in vp.parts.items()}
    assert [pid for pid in meta if is_repeat(meta[pid])] == [rep.id]


def inside_all(vp, pid) -> set[int]:
    out = set(vp.parts[pid].nodes)
    for c in vp.parts[pid].children:
        out |= inside_all(vp, c)
    return out


def test_a_few_layers_or_layers_of_other_shapes_stay_apart():
    _, _, vp = parts_of(MLP.format(n=5))  # five layers read well side by side
    assert not [p for p in vp.parts.values() if p.kind == "loop"]
    widths = "".join(f"nn.Linear({a}, {a + 1}), nn.ReLU(), " for a in range(2, 14))
    src = f"net = nn.Sequential({widths})\nnet(torch.randn(3, 2)).sum().backward()\n"
    _, _, vp = parts_of(src)  # the same classes, but each layer on other shapes
    assert not [p for p in vp.parts.values() if p.kind == "loop"]


def test_the_stack_is_closed_at_auto_and_at_modules_and_open_at_every_op():
    _, _, vp = parts_of(DEEP)
    (rep,) = [p.id for p in vp.parts.values() if p.kind == "loop"]
    for level in ("auto", "module"):
        opened_ = open_set(vp, level)
        assert rep not in opened_ and vp.parts[rep].parent in opened_, level
    assert rep in open_set(vp, "op")


def _box_text(svg: str, pid: str) -> str:
    m = re.search(rf'<g id="{pid}" class="node[^"]*">(.*?)</g>', svg, re.S)
    assert m, f"no box {pid}"
    return " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", m.group(1)))


def _steps(answer: dict) -> list[list[int]]:
    """Each backward pass's steps by node id: shown ones in full, hidden ones in runs."""
    out = []
    for bp in answer["backward"]:
        shown = {s["index"]: s["node"] for s in bp["steps"]}
        for run in bp.get("hidden", []):
            for k, nid in enumerate(run["nodes"]):
                shown[run["index"] + k] = nid
        out.append([shown[k] for k in sorted(shown)])
    return out


def test_the_page_gets_one_box_that_opens_like_a_loop_with_the_same_steps(client):
    run = client.post("/api/run", json={"source": DEEP}).json()
    assert run["error"] is None
    full = client.post("/api/run", json={"source": DEEP, "fold": "op"}).json()
    (rep,) = [p for p in run["parts"] if p["kind"] == "loop"]
    view = run["views"][0]
    assert not rep["open"] and rep["id"] not in view["open"] and rep["parent"] in view["open"]
    assert rep["type_name"] == "Linear → ReLU" and rep["iterations"] == 20
    svg = view["svg"]
    assert re.fullmatch(r"Linear → ReLU ×20", _box_text(svg, rep["id"]))
    boxes = {i for i in svg_ids(svg) if i.startswith("p")}
    assert len(boxes) <= 3  # the stack and the last layer, not 41 layers
    # the same run: the same steps in the same order, the same gradient printed
    assert run["stdout"] == full["stdout"] and re.search(r"-?\d", run["stdout"])
    assert _steps(run) == _steps(full) and len(_steps(run)[0]) > 100

    # opened, it shows its forty layers, each a box, and only what the page did not have yet
    had = view["open"]
    one = opened(client, run, DEEP, had + [rep["id"]])
    assert one["views"][0]["open"] == sorted(had + [rep["id"]], key=lambda p: int(p[1:]))
    layers = [p for p in one["parts"] if p["parent"] == rep["id"]]
    assert [p["label"] for p in layers] == [str(k) for k in range(40)]
    drawn = svg_ids(one["views"][0]["svg"])
    assert {p["id"] for p in layers} <= drawn and rep["id"] in drawn  # the frame and its boxes
    delta = client.post("/api/open", json={"source": DEEP, "view": 0, "open": had + [rep["id"]], "had": had,
                                           "fingerprint": run["fingerprint"]}).json()
    shown_before = {n["id"] for n in run["graph"]["nodes"]}
    assert not {n["id"] for n in delta["graph"]["nodes"]} & shown_before
    # a layer inside opens too: its ops and parameters are drawn
    two = opened(client, run, DEEP, had + [rep["id"], layers[4]["id"]])
    names = {n["name"] for n in two["graph"]["nodes"]}
    assert {"4.weight", "4.bias"} <= names



def test_a_saved_page_holds_the_stack_opened():
    from app.offline import open_key, opened_answers, run_answer

    answer = run_answer(DEEP)
    (rep,) = [p for p in answer["parts"] if p["kind"] == "loop"]
    base = answer["views"][0]["open"]
    got = opened_answers(DEEP, None, answer, seconds=300)
    key = open_key(0, "auto", base + [rep["id"]])
    assert key in got["answers"], list(got["answers"])
    inside = got["answers"][key]
    assert inside["fingerprint"] == answer["fingerprint"]
    layers = [p["id"] for p in inside["parts"] if p["parent"] == rep["id"]]
    assert len(layers) == 40
    assert open_key(0, "auto", base + [rep["id"], layers[0]]) in got["answers"]  # and its first layer
