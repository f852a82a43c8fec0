"""The HTTP API through FastAPI's TestClient: every endpoint, every error class, every example."""

import re

import pytest

from app.examples import EXAMPLES, example_source

from .helpers import assert_consistent, svg_ids

NEURON = example_source("neuron")


def run(client, source, variables=None):
    body = {"source": source}
    if variables is not None:
        body["variables"] = variables
    return client.post("/api/run", json=body)


def assert_error_shape(resp, status):
    assert resp.status_code == status, resp.text
    err = resp.json()["error"]
    assert set(err) == {"type", "message", "line", "col", "explain"}  # explain: the message in both languages
    assert err["type"] and err["message"]
    ex = err["explain"]
    assert (ex["gradviz"] and ex["zh"]) or (not ex["gradviz"] and ex["note"]["en"] and ex["note"]["zh"]), ex
    assert "Traceback" not in resp.text
    return err


# ---- simple endpoints -------------------------------------------------------------------------------
def test_health(client):
    r = client.get("/api/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"
    # This suite runs with the OS sandbox (scripts/setup.sh installs bubblewrap).
    assert r.json()["sandbox"] == {"mode": "full", "layers": {"language": True, "process": True, "os": True}}


def test_examples_list(client):
    r = client.get("/api/examples")
    assert r.status_code == 200
    items = r.json()
    assert len(items) >= 14
    assert len({e["id"] for e in items}) == len(items)
    for e in items:
        assert e["title"]["en"] and re.search(r"[\u4e00-\u9fff]", e["title"]["zh"]), e["id"]
        assert e["source"].strip()


def test_page_and_docs(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "<html" in r.text.lower()
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/run", "/api/health", "/api/examples", "/"} <= set(paths)
    assert "RunResponse" in str(paths["/api/run"]["post"]["responses"]["200"])


def test_unknown_path_and_method_use_the_error_shape(client):
    assert_error_shape(client.get("/api/nothing"), 404)
    assert_error_shape(client.get("/api/run"), 405)


# ---- request errors ----------------------------------------------------------------------------------
def test_invalid_json_is_422_with_position(client):
    r = client.post("/api/run", content=b'{"source": "x = 1",\n  oops}',
                    headers={"content-type": "application/json"})
    err = assert_error_shape(r, 422)
    assert err["type"] == "JSONDecodeError" and err["line"] == 2 and err["col"] == 3


def test_wrong_types_are_422(client):
    err = assert_error_shape(client.post("/api/run", json={"source": 5}), 422)
    assert err["type"] == "ValidationError" and "source" in err["message"]
    bad_value = {"source": "a", "variables": {"a": {"value": "x"}}}
    err = assert_error_shape(client.post("/api/run", json=bad_value), 422)
    assert "variables.a.value" in err["message"]
    assert_error_shape(client.post("/api/run", json=[1, 2]), 422)
    assert_error_shape(client.post("/api/run", json={}), 422)


def test_body_over_256_kb_is_413(client):
    big = "x = 1\n" * 50_000  # 300 KB
    err = assert_error_shape(client.post("/api/run", json={"source": big}), 413)
    assert err["type"] == "RequestTooLarge"


def test_chunked_body_over_256_kb_is_413(client):
    def chunks():
        yield b'{"source": "'
        for _ in range(300):
            yield b"#" * 1024
        yield b'"}'

    r = client.post("/api/run", content=chunks(), headers={"content-type": "application/json"})
    assert_error_shape(r, 413)


# ---- programs that cannot run: 4xx with line and col ---------------------------------------------------
def test_syntax_error(client):
    err = assert_error_shape(run(client, "x = torch.tensor(1.0)\ny = (x +\n"), 400)
    assert err["type"] == "SyntaxError" and err["line"] is not None and err["col"] is not None


def test_forbidden_construct(client):
    err = assert_error_shape(run(client, "x = torch.tensor(1.0)\ny = x.__class__.__bases__\n"), 400)
    assert err["line"] == 2 and err["col"] is not None
    assert_error_shape(run(client, "import os\n"), 400)


def test_unknown_name(client):
    r = run(client, "y = torch.tensor(1.0)\nz = y + undefined_name\n")
    assert r.status_code in (200, 400)
    err = r.json()["error"]
    assert err["type"] == "NameError" and err["line"] == 2


def test_limit_exceeded(client):
    err = assert_error_shape(run(client, "x = 1\n" * 4000), 400)  # over 20,000 characters
    assert err["type"] == "LimitError"


# ---- run-time errors: 200 with the error and what ran before ---------------------------------------------
def test_runtime_error_returns_partial_results(client):
    src = ("a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
           "b = a * 2\n"
           "print('before')\n"
           "c = b + torch.ones(3)\n")
    r = run(client, src)
    assert r.status_code == 200
    body = r.json()
    assert body["error"]["type"] == "RuntimeError" and body["error"]["line"] == 4
    assert "before" in body["stdout"]
    assert "b" in body["variables"] and body["variables"]["b"]["grad_fn"] == "MulBackward0"
    assert any(n["name"] == "MulBackward0" for n in body["graph"]["nodes"])
    assert_consistent(body)


def test_non_finite_values_are_valid_json(client):
    r = run(client, "x = torch.tensor([-1.0, 0.0], requires_grad=True)\ny = torch.log(x)\n")
    assert r.status_code == 200
    assert r.json()["variables"]["y"]["value"] == ["NaN", "-Infinity"]


# ---- the contract on real programs ------------------------------------------------------------------------
def test_expression_mode_binds_free_names_and_runs_backward(client):
    r = run(client, "(a * b + 1) ** 2", {"a": {"value": 2.0}, "b": {"value": 3.0, "requires_grad": True}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == "expression" and sorted(body["free_names"]) == ["a", "b"]
    assert body["auto_backward"] and len(body["backward"]) == 1
    assert body["variables"]["a"]["grad"] == 42.0
    assert_consistent(body)


def test_neuron_contract(client):
    r = run(client, NEURON)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["error"] is None
    v = body["variables"]
    assert v["w"]["shape"] == [1] and v["w"]["is_leaf"] and v["w"]["requires_grad"]
    assert v["loss"]["grad_fn"] == "PowBackward0" and not v["loss"]["is_leaf"]
    assert abs(v["w"]["grad"][0] + 3.3166e-06) < 1e-8
    assert body["stdout"].startswith("tensor([")
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    assert nodes[v["w"]["node"]]["name"] == "w"
    mul = next(n for n in nodes.values() if n["name"] == "MulBackward0")
    assert mul["line"] == 4 and mul["col"] is not None
    assert "svg" not in body, "the drawings are in views[i].svg only (no second copy of the first)"
    svg = body["views"][0]["svg"]
    assert svg.startswith("<svg") and f'id="n{mul["id"]}"' in svg
    assert {"run", "serialize", "layout", "total"} <= set(body["timings"])
    assert_consistent(body)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_every_example_runs_and_agrees_with_its_drawing(client, example):
    r = run(client, example["source"], example["variables"])
    assert r.status_code == 200, r.text
    body = r.json()
    if example["id"] == "backward-twice":
        assert body["error"]["type"] == "RuntimeError" and body["error"]["line"] == 5
        assert "second time" in body["error"]["message"]
        first, second = body["backward"]  # the failed pass is there, with no steps, on the same view
        assert len(first["steps"]) == 2 and second["steps"] == [] and second["view"] == first["view"]
    else:
        assert body["error"] is None, body["error"]
    assert body["graph"]["nodes"] and body["views"]
    assert_consistent(body)
    for v in body["views"]:
        assert svg_ids(v["svg"])


def test_example_numbers(client):
    def grads(example_id):
        ex = next(e for e in EXAMPLES if e["id"] == example_id)
        return run(client, ex["source"], ex["variables"]).json()

    assert grads("fan-out")["variables"]["x"]["grad"] == 8.0
    assert grads("retain-graph")["variables"]["x"]["grad"] == 24.0
    assert grads("detach")["variables"]["x"]["grad"] == 9.0
    body = grads("retain-grad")
    assert body["variables"]["h"]["grad"] == 12.0 and body["variables"]["x"]["grad"] == 36.0
    body = grads("accumulation")
    assert len(body["backward"]) == 3 and len(body["views"]) == 3
    body = grads("linear-regression")
    assert len(body["iterations"]) == 100 and len(body["views"]) == 6 and body["graph"]["omitted_ops"] > 0
    assert body["iterations"][-1]["loss"] < 0.01
    body = grads("vanishing")
    assert abs(body["variables"]["x"]["grad"]) < 1e-10
    body = grads("no-grad")
    assert len(body["backward"]) == 1 and "False" in body["stdout"]


def test_dynamic_graph_changes_with_the_input(client):
    ex = next(e for e in EXAMPLES if e["id"] == "dynamic-graph")
    small = run(client, ex["source"].replace("1.5", "0.2")).json()
    big = run(client, ex["source"]).json()
    assert len(small["graph"]["nodes"]) != len(big["graph"]["nodes"])


def test_rerun_with_other_values_costs_no_layout(client):
    from app.drawing.layout import CACHE

    src = "(a * b + 1) ** 2"
    first = run(client, src, {"a": {"value": 2.0}, "b": {"value": 3.0}}).json()
    renders = CACHE.renders
    second = run(client, src, {"a": {"value": -7.5}, "b": {"value": 0.25}}).json()
    assert CACHE.renders == renders  # same structure: the cached drawing, no dot run
    assert second["views"][0]["svg"] == first["views"][0]["svg"]
    assert second["variables"]["a"]["grad"] != first["variables"]["a"]["grad"]


def test_unexpected_server_error_is_a_json_4xx(client, monkeypatch):
    import app.routes.worker_calls as run_route

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(run_route, "draw_views", broken)
    err = assert_error_shape(run(client, "(a + b) * c", {"a": {"value": 1.0}, "b": {"value": 1.0},
                                                          "c": {"value": 1.0}}), 400)
    assert err["type"] == "InternalError" and "KeyError" in err["message"]
