"""GET /api/limits: the limits the page shows before a request meets them are the ones the server applies."""

from __future__ import annotations

import pytest

from app.mlp.builder import MlpConfigError, build_program
from app.schemas import Limits, MlpConfig


@pytest.fixture(scope="module")
def limits(client):
    r = client.get("/api/limits")
    assert r.status_code == 200, r.text
    return Limits.model_validate(r.json())


def test_runner_limits_by_the_names_messages_use(limits):
    from engine.runner import Settings

    s = Settings()
    assert limits.run["timeout_s"] == s.timeout_s and limits.run["max_ops"] == s.max_ops
    assert "max_loop_iterations" in limits.run and "seed" not in limits.run
    assert limits.layout_max_nodes > 0


@pytest.mark.parametrize("layers, accumulate", [(0, 1), (2, 1), (2, 4), (6, 16)])
def test_most_steps_is_what_the_builder_accepts(limits, layers, accumulate):
    most = limits.mlp.max_steps[layers][accumulate - 1]
    name = limits.mlp.max_steps_limit[layers][accumulate - 1]
    hidden = ", ".join(["4"] * layers)
    cfg = dict(dataset="moons", hidden=hidden, accumulate=accumulate, batch_size=8)
    build_program(MlpConfig(**cfg, steps=most))  # accepted
    with pytest.raises(MlpConfigError) as err:
        build_program(MlpConfig(**cfg, steps=most + 1))
    assert err.value.field == "steps" and f"limit: {name}" in str(err.value)


def test_form_bounds_are_the_schemas(client, limits):
    f = limits.mlp.fields
    assert f["n_points"].min == 4 and f["n_points"].max == 2000
    assert f["lr"].min == 0 and f["lr"].min_open and f["momentum"].max_open
    assert len(limits.mlp.max_steps) == limits.mlp.hidden_layers + 1
    assert all(len(row) == f["accumulate"].max for row in limits.mlp.max_steps)
    too_many = {"dataset": "moons", "n_points": int(f["n_points"].max) + 1}
    r = client.post("/api/mlp/program", json=too_many)
    assert r.status_code == 422 and "n_points" in r.json()["error"]["message"]
    hidden = ", ".join(["4"] * (limits.mlp.hidden_layers + 1))
    r = client.post("/api/mlp/program", json={"dataset": "moons", "hidden": hidden})
    assert r.status_code == 422 and "hidden" in r.json()["error"]["message"]
