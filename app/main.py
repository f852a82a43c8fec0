"""The gradviz web app: routers per resource, one error shape, the page and its static files."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from .package import STATIC
from .routes import (
    class_api,
    class_stream,
    examples,
    health,
    layout,
    limits,
    metrics,
    mlp,
    offline,
    open_parts,
    ops,
    page,
    run,
    run_extras,
)
from .server.body_limit import BodyLimitMiddleware
from .server.clients import ClientMiddleware
from .server.csp import HEADER, CspMiddleware, docs_policy
from .server.errors import install_error_handlers
from .server.metrics import Metrics, MetricsMiddleware
from .server.pool import lifespan
from .settings import AppSettings, load_settings


def create_app(settings: AppSettings | None = None) -> FastAPI:
    """Build the app (tests pass their own settings)."""
    settings = settings or load_settings()
    app = FastAPI(title="gradviz", summary="Interactive computational-graph visualizer for autograd",
                  version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.settings = settings
    app.add_middleware(CspMiddleware)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(ClientMiddleware)
    app.state.metrics = Metrics()
    app.add_middleware(MetricsMiddleware, metrics=app.state.metrics)
    install_error_handlers(app)
    for module in (page, offline, health, metrics, examples, limits, run, run_extras, open_parts, layout, mlp,
                   ops, class_api, class_stream):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=str(STATIC), check_dir=False), name="static")
    add_docs(app)
    return app


def add_docs(app: FastAPI) -> None:
    """FastAPI's API docs at /docs and /redoc, each with a policy that lets only its own code run."""

    def with_policy(page: HTMLResponse) -> HTMLResponse:
        page.headers[HEADER] = docs_policy(page.body.decode())
        return page

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        page = get_swagger_ui_html(openapi_url=app.openapi_url, title=f"{app.title} - Swagger UI")
        return with_policy(page)

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return with_policy(get_redoc_html(openapi_url=app.openapi_url, title=f"{app.title} - ReDoc",
                                          with_google_fonts=False))


app = create_app()
