"""A follower's stream (``GET /api/class/{id}/events``, Server-Sent Events): the class as it is now,
then each change the teacher's page publishes, a ``ping`` every ``PING_S`` (proxies keep the
stream open, and a page that hears nothing for a while knows its connection is dead), and ``end``
when the class ends. A browser's EventSource reconnects by itself after ``RETRY_MS`` and gets the
class as it is then: a student who reloads or was offline is back at the current step.
``GET /c/{code}``: the short code typed in the address bar leads to the join link."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, StreamingResponse

from ..server.classes import Refused, classes_of, message

router = APIRouter(tags=["class"])
PING_S = 15.0
RETRY_MS = 1000


def _ended(text: str) -> bool:
    return text.startswith('{"kind":"end"')  # as classes.message writes it


def _event(seq: int, text: str) -> str:
    return f"id: {seq}\nevent: {'end' if _ended(text) else 'state'}\ndata: {text}\n\n"


@router.get("/api/class/{cid}/events", response_model=None)
async def events(cid: str, request: Request):
    """The class's state now and after each change, as ``text/event-stream``."""
    classes = classes_of(request.app)
    try:
        record = await classes.find(cid)
    except Refused as exc:
        return JSONResponse(status_code=exc.status, content=exc.content())
    box = classes.hub.join(cid)

    async def stream():
        try:
            last = record["seq"]
            yield f"retry: {RETRY_MS}\n" + _event(last, message(record))
            while True:
                got = await box.next(PING_S)
                if got is None:
                    yield "event: ping\ndata: {}\n\n"
                    continue
                seq, text = got
                if seq <= last:
                    continue
                last = seq
                yield _event(seq, text)
                if _ended(text):
                    return
        finally:
            classes.hub.leave(cid, box)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/c/{code}", response_model=None)
async def short_code(code: str, request: Request):
    """The join link of the class with this short code (typed in the address bar)."""
    try:
        cid = await classes_of(request.app).by_code(code, request.client.host if request.client else "?")
    except Refused as exc:
        return JSONResponse(status_code=exc.status, content=exc.content())
    return RedirectResponse(f"/?class={cid}", status_code=303)
