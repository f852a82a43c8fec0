"""GET /api/health: the server is up, and which containment layers are in force. Async and free of
the worker pool, so it answers at once under any load."""

from fastapi import APIRouter, Request

from ..schemas.meta import Health

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=Health)
async def health(request: Request) -> Health:
    """The server is up; ``sandbox`` says which layers contain the programs it runs, ``pool`` how
    busy the workers are."""
    pool = getattr(request.app.state, "pool", None)
    if pool is None:
        return Health()
    return Health(sandbox=pool.health(), pool=pool.stats())
