"""GET /metrics: requests, latencies, the worker pool and the layout cache of this process, in
Prometheus' text format. Async and free of the worker pool, like /api/health."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from ..drawing.layout import CACHE
from ..server.classes import class_gauges
from .shared_answers import COUNTS

router = APIRouter(tags=["health"])


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(request: Request) -> PlainTextResponse:
    """Requests, latencies, the worker pool and the layout cache, in Prometheus' text format."""
    gauges = {}
    pool = getattr(request.app.state, "pool", None)
    if pool is not None:
        s = pool.stats()
        gauges.update({
            "gradviz_pool_places": ("worker places (general and reserved)", s["places"]),
            "gradviz_pool_running": ("requests running in workers", s["running"]),
            "gradviz_pool_queued": ("requests waiting for a worker", s["queued"]),
            "gradviz_pool_spares": ("workers forked and warmed up, waiting for a request", s["spares"]),
            "gradviz_pool_kept": ("workers kept for their own client's next runs", s["kept"]),
            "gradviz_pool_heavy_clients": ("clients that used much worker time lately", s["heavy_clients"]),
            "gradviz_worker_restarts_total": ("times the worker template was replaced", s["restarts"]),
        })
    cache = CACHE.stats()
    gauges.update({
        "gradviz_layout_cache_hits_total": ("layouts served from the cache", cache["hits"]),
        "gradviz_layout_renders_total": ("layouts computed by dot (cache misses)", cache["renders"]),
        "gradviz_answers_shared_total": ("runs and opened parts answered from the shared cache", COUNTS.hits),
        "gradviz_answers_waited_total": ("of those, answers that waited for the same request under way",
                                         COUNTS.waited),
    })
    gauges.update(class_gauges(request.app))
    return PlainTextResponse(request.app.state.metrics.text(gauges),
                             media_type="text/plain; version=0.0.4; charset=utf-8")
