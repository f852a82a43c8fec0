"""Who is asking: each browser gets a random session cookie (``gv_client``) with its first answer;
a request is counted against that client, or against its address when it sends no cookie. The
cookie is only an identity for fair sharing of the workers, and the key under which a worker may
be kept for the same browser's next runs: it grants nothing else."""

from __future__ import annotations

import re
import secrets
from http.cookies import SimpleCookie

COOKIE = "gv_client"
_VALID = re.compile(r"^[0-9a-f]{32}$")


def client_of(scope) -> str:
    """The client id of an ASGI request (``scope["state"]["client"]`` once the middleware ran)."""
    return scope.get("state", {}).get("client", "-")


def worker_key_of(scope) -> str | None:
    """A key under which this client's worker may be kept for its next runs: only for a browser
    with a session cookie, and tied to its address too (a cookie planted in another browser from
    elsewhere does not reach this client's worker). None: every run gets a fresh worker."""
    return scope.get("state", {}).get("worker_key")


class ClientMiddleware:
    """Puts the client id in ``scope["state"]["client"]``; sets the cookie when the request had none."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = _cookie(scope)
        addr = (scope.get("client") or ("?", 0))[0]
        state = scope.setdefault("state", {})
        if token is not None:
            state["client"], state["worker_key"], new = f"s:{token}", f"{token}|{addr}", None
        else:
            state["client"], state["worker_key"], new = f"a:{addr}", None, secrets.token_hex(16)
        if new is None:
            return await self.app(scope, receive, send)

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((b"set-cookie", f"{COOKIE}={new}; Path=/; HttpOnly; SameSite=Lax; "
                                               "Max-Age=31536000".encode()))
                message = dict(message, headers=headers)
            await send(message)

        return await self.app(scope, receive, send_with_cookie)


def _cookie(scope) -> str | None:
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            jar = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed Cookie header is no identity
                return None
            morsel = jar.get(COOKIE)
            if morsel is not None and _VALID.match(morsel.value):
                return morsel.value
    return None
