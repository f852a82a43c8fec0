"""GET /api/health."""

from fastapi import APIRouter

from ..schemas import Health

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=Health)
def health() -> Health:
    """The server is up."""
    return Health()
