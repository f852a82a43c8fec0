"""A program that runs past the deadline gets a 4xx; the server keeps serving (worker replaced)."""

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import AppSettings

SLOW = """
a = torch.ones(1000, 1000)
for i in range(100000):
    s = a.sum()
"""  # ~1 ms per iteration with tiny results: no allocation or loop limit before the deadline


def test_timeout_is_4xx_and_the_server_keeps_serving():
    app = create_app(AppSettings(pool_workers=1, run_timeout_s=1.0))
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.post("/api/run", json={"source": SLOW})
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert err["type"] == "TimeoutError" and "timeout" in err["message"]
        assert client.get("/api/health").json() == {"status": "ok"}
        again = client.post("/api/run", json={"source": "(a + b) * c", "variables": {
            "a": {"value": 1.0}, "b": {"value": 2.0}, "c": {"value": 3.0}}})
        assert again.status_code == 200 and again.json()["variables"]["a"]["grad"] == 3.0
