"""The MLP routes and the training parts of POST /api/run, through FastAPI's TestClient."""

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.mlp.boundary import snapshot_steps


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def build(client, **cfg):
    r = client.post("/api/mlp/program", json=cfg)
    assert r.status_code == 200, r.text
    return r.json()


def test_program_route(client):
    body = build(client, hidden="8, 16", activation="tanh")
    assert body["task"] == "classification" and body["classes"] == 2
    assert body["layers"] == [[2, 8], [8, 16], [16, 2]]
    assert "nn.Tanh()" in body["source"] and "nn.Linear(8, 16)" in body["source"]


@pytest.mark.parametrize("cfg, needle", [
    (dict(dataset="linear"), "input_size"),
    (dict(hidden="8, x"), "hidden"),
    (dict(loss="bce", output_size=2), "output_size"),
])
def test_program_route_rejects_bad_forms(client, cfg, needle):
    r = client.post("/api/mlp/program", json=cfg)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["type"] == "ConfigError" and err["message"].startswith(needle)


def test_program_route_rejects_wrong_types(client):
    r = client.post("/api/mlp/program", json={"steps": "many"})
    assert r.status_code == 422
    assert "error" in r.json()


def test_run_generated_training_program(client):
    src = build(client, steps=40, hidden="8")["source"]
    r = client.post("/api/run", json={"source": src})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["error"] is None
    its = body["iterations"]
    assert len(its) == 40 and all(it["loss"] is not None for it in its)
    assert sum(1 for it in its if it["view"] is not None) == 6  # first 3 and last 3 in full
    assert len(body["optimizer_steps"]) >= 6
    assert any(e["kind"] == "zero_grad" for e in body["events"])
    ops = [n for n in body["graph"]["nodes"] if n["kind"] == "op"]
    assert {"AddmmBackward0", "ReluBackward0"} <= {n["name"] for n in ops}
    assert {n["module"] for n in ops if n["name"] == "AddmmBackward0"} == {"fc1", "fc2"}
    assert "accuracy" in body["stdout"]


def run_order(resp: dict) -> tuple:
    """Every op and backward step of an answer in program order, shown or hidden in a closed part."""
    ops = []
    for ev in resp["events"]:
        ops.extend(ev["nodes"] if ev["kind"] == "ops" else [ev["index"]] if ev["kind"] == "op" else [])
    steps = []
    for bp in resp["backward"]:
        order = {s["index"]: s["node"] for s in bp["steps"]}
        for run in bp["hidden"]:
            order.update({run["index"] + i: n for i, n in enumerate(run["nodes"])})
        steps.append([order[i] for i in sorted(order)])
    return ops, steps


def test_fold_levels(client):
    src = build(client, steps=4, hidden="8")["source"]
    module = client.post("/api/run", json={"source": src, "fold": "module"}).json()
    op = client.post("/api/run", json={"source": src, "fold": "op"}).json()
    auto = client.post("/api/run", json={"source": src}).json()
    assert all(v["folded"] for v in module["views"])
    assert not any(v["folded"] for v in op["views"])
    assert not any(v["folded"] for v in auto["views"])  # small graphs are drawn op by op
    view = module["views"][0]
    boxes = [p for p in module["parts"] if p["view"] == 0 and p["id"] not in view["open"]]
    assert {"fc1", "act1", "fc2"} <= {p["label"] for p in boxes}
    assert all(f'id="{p["id"]}"' in view["svg"] for p in boxes)
    # Folding changes what the answer holds in full, not the run: the same ops and steps in the
    # same order, each either in full or named by id in a closed part.
    assert len(module["graph"]["nodes"]) < len(op["graph"]["nodes"])
    assert run_order(module) == run_order(op)
    bad = client.post("/api/run", json={"source": src, "fold": "sideways"})
    assert bad.status_code == 422


def test_boundary_route(client):
    cfg = {"steps": 200, "hidden": "16, 16"}
    r = client.post("/api/mlp/boundary", json={"config": cfg, "grid": 20, "frames": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["error"] is None
    assert [f["step"] for f in body["frames"]] == snapshot_steps(200, 5) == [0, 50, 100, 150, 200]
    f0, last = body["frames"][0], body["frames"][-1]
    assert len(last["classes"]) == 20 and len(last["classes"][0]) == 20
    assert all(0.0 <= c <= 1.0 for row in last["confidence"] for c in row)
    assert len(body["points"]) == 200 and set(body["labels"]) == {0, 1}
    assert last["accuracy"] >= 0.95 and last["accuracy"] > f0["accuracy"]
    assert body["x_range"][0] < min(p[0] for p in body["points"])


def test_boundary_route_on_an_edited_program(client):
    cfg = {"steps": 10, "hidden": "8"}
    src = build(client, **cfg)["source"].replace("nn.Linear(2, 8)", "nn.Linear(2, 5)").replace(
        "nn.Linear(8, 2)", "nn.Linear(5, 2)")
    body = client.post("/api/mlp/boundary", json={"config": cfg, "source": src}).json()
    assert body["frames"] == [] and "do not match" in body["error"]["message"]
    broken = client.post("/api/mlp/boundary", json={"config": cfg, "source": "x = (1"}).json()
    assert broken["frames"] == [] and broken["error"]["type"] == "SyntaxError"


def test_boundary_route_regression_has_no_boundary(client):
    cfg = {"dataset": "linear", "input_size": 1, "output_size": 1, "loss": "mse", "hidden": ""}
    body = client.post("/api/mlp/boundary", json={"config": cfg}).json()
    assert body["frames"] == [] and body["error"] is not None
