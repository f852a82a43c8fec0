"""Request counts and latencies of this server process, in Prometheus' text format (written here:
a few counters and one histogram need no client library). Served by ``GET /metrics``."""

from __future__ import annotations

import bisect
import threading
import time

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
ROUTES = ("/api/run", "/api/health", "/api/examples", "/api/mlp/program", "/api/mlp/boundary",
          "/api/layout", "/api/limits", "/metrics", "/")


CLASS_ACTIONS = ("join", "events", "state", "reveal", "answers", "guess")


def route_label(path: str) -> str:
    """A bounded label for a path: the known routes by name, a live class's by action (its id left
    out), the rest as static or other."""
    if path in ROUTES:
        return path
    if path.startswith("/api/class"):
        action = path.rsplit("/", 1)[-1]
        return f"/api/class/{action}" if action in CLASS_ACTIONS else "/api/class"
    if path.startswith("/c/"):
        return "/c"
    return "static" if path.startswith("/static/") else "other"


class Metrics:
    """Thread-safe counters: requests by route and status class, latency histogram by route."""

    def __init__(self):
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str], int] = {}
        self.hist: dict[str, list[int]] = {}
        self.sums: dict[str, float] = {}

    def observe(self, route: str, status: int, seconds: float) -> None:
        key = (route, f"{status // 100}xx")
        with self._lock:
            self.requests[key] = self.requests.get(key, 0) + 1
            counts = self.hist.setdefault(route, [0] * (len(BUCKETS) + 1))
            counts[bisect.bisect_left(BUCKETS, seconds)] += 1
            self.sums[route] = self.sums.get(route, 0.0) + seconds

    def text(self, gauges: dict[str, tuple[str, float]]) -> str:
        """The exposition: counters, the histogram, then ``gauges`` (name -> (help, value))."""
        out = ["# HELP gradviz_requests_total HTTP requests answered, by route and status class",
               "# TYPE gradviz_requests_total counter"]
        with self._lock:
            for (route, status), n in sorted(self.requests.items()):
                out.append(f'gradviz_requests_total{{route="{route}",status="{status}"}} {n}')
            out += ["# HELP gradviz_request_seconds Time to answer, by route",
                    "# TYPE gradviz_request_seconds histogram"]
            for route, counts in sorted(self.hist.items()):
                total = 0
                for bound, n in zip(BUCKETS, counts):
                    total += n
                    out.append(f'gradviz_request_seconds_bucket{{route="{route}",le="{bound}"}} {total}')
                total += counts[-1]
                out.append(f'gradviz_request_seconds_bucket{{route="{route}",le="+Inf"}} {total}')
                out.append(f'gradviz_request_seconds_sum{{route="{route}"}} {self.sums[route]:.6f}')
                out.append(f'gradviz_request_seconds_count{{route="{route}"}} {total}')
        for name, (help_text, value) in gauges.items():
            kind = "counter" if name.endswith("_total") else "gauge"
            out += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", f"{name} {value:g}"]
        return "\n".join(out) + "\n"


class MetricsMiddleware:
    """Times every HTTP request into ``metrics``."""

    def __init__(self, app, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()
        status = [500]

        async def send_and_note(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            self.metrics.observe(route_label(scope.get("path", "")), status[0], time.perf_counter() - t0)
