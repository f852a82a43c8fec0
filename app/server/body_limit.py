"""ASGI middleware: refuse request bodies over the limit with 413 in the error shape.

The body is read (at most ``max_bytes + 1`` bytes) before the app sees it, so the limit holds for
chunked uploads without a Content-Length too; the app then reads the buffered body.
"""

from __future__ import annotations

import json

from ..schemas.common import error_info
from ..words.messages import own_message


class BodyLimitMiddleware:
    """Answer 413 ``RequestTooLarge`` when a request body exceeds ``max_bytes``."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await self._refuse(send)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await self._refuse(send)
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send) -> None:
        kb = self.max_bytes // 1024
        error = error_info("RequestTooLarge", own_message("body_too_large", kb))
        payload = json.dumps({"error": error}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})
