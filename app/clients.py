"""Who is asking: each browser gets a random session cookie (``gv_client``) with its first answer;
a request is counted against that client, or against its address when it sends no cookie. The
cookie is only an identity for fair sharing of the workers: it grants nothing."""

from __future__ import annotations

import re
import secrets
from http.cookies import SimpleCookie

COOKIE = "gv_client"
_VALID = re.compile(r"^[0-9a-f]{32}$")


def client_of(scope) -> str:
    """The client id of an ASGI request (``scope["state"]["client"]`` once the middleware ran)."""
    return scope.get("state", {}).get("client", "-")


class ClientMiddleware:
    """Puts the client id in ``scope["state"]["client"]``; sets the cookie when the request had none."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = _cookie(scope)
        if token is not None:
            client, new = f"s:{token}", None
        else:
            addr = (scope.get("client") or ("?", 0))[0]
            client, new = f"a:{addr}", secrets.token_hex(16)
        scope.setdefault("state", {})["client"] = client
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
