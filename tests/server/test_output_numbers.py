"""An edge out of a node of several outputs (UnbindBackward0, SplitBackward0, SplitWithSizesBackward0)
carries one output, as torch's ``next_functions`` pairs say: the answer of ``POST /api/run`` gives each
such edge that output number, and its drawing writes it on the edge ("output 2 · [2]"). The numbers are
read from real torch running the same program."""

from __future__ import annotations

import re

import torch
from torch_graph import torch_nodes

PROGRAM = """p = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], requires_grad=True)
a, b, c = p
q, r = p.split([1, 2])
u, v = p.chunk(2, dim=1)
loss = (a * 2 + c * b).sum() + (r * 3).sum() + (u * v).sum() + q.sum()
loss.backward()
"""


def _torch_outputs() -> list[list[int]]:
    """For each MulBackward0 torch records, in program order: the output number each input reads."""
    namespace = {"torch": torch}
    exec(PROGRAM, namespace)  # noqa: S102 - our own test program, run by real torch
    loss = namespace["loss"]
    muls = [(fn._sequence_nr(), [nr for _, nr in fn.next_functions]) for fn in torch_nodes(loss.grad_fn)
            if fn.name() == "MulBackward0" and type(fn.next_functions[0][0]).__name__ != "AccumulateGrad"]
    return [nrs for _, nrs in sorted(muls)]


def test_each_edge_out_of_unbind_or_split_says_its_output_in_the_answer_and_the_drawing(client):
    resp = client.post("/api/run", json={"source": PROGRAM})
    assert resp.status_code == 200, resp.text
    answer = resp.json()
    nodes = {n["id"]: n for n in answer["graph"]["nodes"]}
    edges = {e["id"]: e for e in answer["graph"]["edges"]}
    several = {nid for nid, n in nodes.items() if n.get("outputs", 1) > 1}
    assert sorted(nodes[n]["name"] for n in several) == ["SplitBackward0", "SplitWithSizesBackward0",
                                                         "UnbindBackward0"]
    muls = [n for n in nodes.values() if n["name"].startswith("MulBackward0")
            and nodes[edges[n["inputs"][0]]["source"]]["id"] in several]
    read = [[edges[e]["output"] for e in n["inputs"]] for n in muls]
    assert read == _torch_outputs() == [[0, 0], [2, 1], [1, 0], [0, 1]]  # a * 2, c * b, r * 3, u * v
    svg = answer["views"][0]["svg"]
    for eid, e in edges.items():
        group = re.search(rf'<g id="e{eid}" class="edge">(.*?)</g>', svg, flags=re.S)
        label = re.findall(r"<text[^>]*>([^<]*)</text>", group.group(1)) if group else []
        if e["source"] in several:
            shape = "[" + ", ".join(map(str, e["shape"])) + "]"
            assert label == [f"output {e['output']} · {shape}"], (eid, label)
        else:
            assert not any(t.startswith("output") for t in label), (eid, label)
