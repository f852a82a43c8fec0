"""GET /api/examples: the example programs, titles in English and Chinese."""

from fastapi import APIRouter

from ..examples import EXAMPLES
from ..schemas.meta import Example

router = APIRouter(prefix="/api", tags=["examples"])


@router.get("/examples", response_model=list[Example])
def examples() -> list[dict]:
    """Every example, in teaching order."""
    return EXAMPLES
