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
        assert err["line"] in (3, 4)  # where the killed worker was, from its watchdog
        assert client.get("/api/health").json()["status"] == "ok"
        again = client.post("/api/run", json={"source": "(a + b) * c", "variables": {
            "a": {"value": 1.0}, "b": {"value": 2.0}, "c": {"value": 3.0}}})
        assert again.status_code == 200 and again.json()["variables"]["a"]["grad"] == 3.0


def test_a_slow_run_does_not_hold_up_other_requests():
    import threading

    app = create_app(AppSettings(pool_workers=2, run_timeout_s=3.0))
    done = []
    with TestClient(app, raise_server_exceptions=False) as client:
        def slow():
            r = client.post("/api/run", json={"source": SLOW})
            done.append(("slow", r.status_code))

        t = threading.Thread(target=slow)
        t.start()
        ok = client.get("/api/health")
        fast = client.post("/api/run", json={"source": "(a * b) ** 2", "variables": {
            "a": {"value": 1.0}, "b": {"value": 2.0}}})
        done.append(("fast", fast.status_code))
        t.join(30)
    assert ok.status_code == 200
    assert done == [("fast", 200), ("slow", 400)]  # the fast run finished while the slow one ran
