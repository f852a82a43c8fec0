"""The live class API: the teacher starts a class (``POST /api/class``), publishes what their page
shows (``PUT /api/class/{id}/state``), reads how many students answered and their guesses, reveals
(``POST .../reveal``) and ends it (``DELETE``); a student joins by link or code and sends guesses.
The teacher's requests carry ``X-Class-Teacher``, a student's ``X-Class-Student``. The rules:
``app/server/classes.py``; the followers' stream: ``class_stream.py``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse

from ..schemas.classes import Answers, ClassState, Guess, JoinCode, Joined, Reveal, Started
from ..server.class_rules import MAX_STATE_BYTES
from ..server.classes import Refused, classes_of
from ..server.clients import client_of

router = APIRouter(prefix="/api/class", tags=["class"])
Teacher = Annotated[str | None, Header(alias="X-Class-Teacher", max_length=64)]
Student = Annotated[str | None, Header(alias="X-Class-Student", max_length=64)]


def refused(exc: Refused) -> JSONResponse:
    return JSONResponse(status_code=exc.status, content=exc.content())


@router.post("", response_model=Started)
async def start(request: Request):
    """Start a class: its id (the join link), its short code, and the teacher token."""
    try:
        return await classes_of(request.app).start(client_of(request.scope))
    except Refused as exc:
        return refused(exc)


@router.post("/join", response_model=Joined)
async def join_by_code(body: JoinCode, request: Request):
    """Join the class whose short code was typed."""
    classes = classes_of(request.app)
    try:
        cid = await classes.by_code(body.code, request.client.host if request.client else "?")
        return await classes.join(cid, client_of(request.scope))
    except Refused as exc:
        return refused(exc)


@router.post("/{cid}/join", response_model=Joined)
async def join(cid: str, request: Request):
    """Join the class of a link: a student token and the class as it is now."""
    try:
        return await classes_of(request.app).join(cid, client_of(request.scope))
    except Refused as exc:
        return refused(exc)


@router.put("/{cid}/state")
async def publish_state(cid: str, body: ClassState, request: Request, teacher: Teacher = None):
    """The teacher's page now shows ``body``: every follower is told."""
    classes = classes_of(request.app)
    state = body.model_dump(mode="json", exclude_defaults=False)
    if len(await request.body()) > MAX_STATE_BYTES:
        return refused(classes.refuse("too_large"))
    try:
        return {"seq": await classes.publish(cid, teacher, state=state)}
    except Refused as exc:
        return refused(exc)


@router.post("/{cid}/reveal")
async def reveal(cid: str, body: Reveal, request: Request, teacher: Teacher = None):
    """The teacher revealed a prediction: every student is told the class's share of right answers."""
    try:
        return {"seq": await classes_of(request.app).publish(cid, teacher, revealed=body.model_dump())}
    except Refused as exc:
        return refused(exc)


@router.get("/{cid}/answers", response_model=Answers)
async def answers(cid: str, frame: int, request: Request, full: bool = False, teacher: Teacher = None):
    """How many students answered the prediction at ``frame``; ``full``: their guesses too."""
    try:
        return await classes_of(request.app).answers(cid, teacher, frame, full)
    except Refused as exc:
        return refused(exc)


@router.post("/{cid}/guess", status_code=204)
async def guess(cid: str, body: Guess, request: Request, student: Student = None):
    """A student's guesses at a step (the latest ones count)."""
    try:
        await classes_of(request.app).guess(cid, student, body.frame, body.guesses)
    except Refused as exc:
        return refused(exc)


@router.delete("/{cid}", status_code=204)
async def end(cid: str, request: Request, teacher: Teacher = None):
    """End the class: everything of it is dropped and every follower is told."""
    try:
        await classes_of(request.app).end(cid, teacher)
    except Refused as exc:
        return refused(exc)
