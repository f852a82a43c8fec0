"""Who is asking: each browser gets a session cookie (``gv_client``) with its first answer, and each
request is counted against its cookie (a request without one, against the cookie it is given). The
cookie is only an identity for fair sharing of the workers, and the key under which a worker may be
kept for the same browser's next runs: it grants nothing else.

The server signs the cookies it issues (a random token and an HMAC of it under the server's secret,
``GRADVIZ_SECRET`` or one per process tree): a value the server did not issue is no identity, and
is answered with a cookie of its own. Identities still cost a request to make, so admission
(app/sandbox/admission.py) gives none a head start before it has a record; the client id carries
the address as its group (``s:<token>@<address>``), where identities without a record are counted
together.

The address is the connection's peer, or, only when that peer is one of the proxies the operator
named (``GRADVIZ_TRUSTED_PROXIES``), the nearest address in ``X-Forwarded-For`` that is not one of
them: anyone else's ``X-Forwarded-For`` is ignored."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import secrets
from functools import lru_cache
from http.cookies import SimpleCookie

from ..sandbox.admission import CURRENT

COOKIE = "gv_client"
TOKEN_HEX = 16  # 64 random bits; and 64 bits of MAC: the cookie stays 32 hex digits
_VALID = re.compile(r"^[0-9a-f]{32}$")


def client_secret() -> bytes:
    """The key that signs session cookies: ``GRADVIZ_SECRET`` (replicas behind one proxy share it),
    else one made now and put in this process's environment, so the server processes it starts
    (``--workers``) sign with the same key."""
    value = os.environ.get("GRADVIZ_SECRET")
    if not value:
        value = os.environ["GRADVIZ_SECRET"] = secrets.token_hex(32)
    return value.encode()


def client_of(scope) -> str:
    """The client id of an ASGI request (``scope["state"]["client"]`` once the middleware ran)."""
    return scope.get("state", {}).get("client", "-")


def worker_key_of(scope) -> str | None:
    """A key under which this client's worker may be kept for its next runs: only for a browser
    with a session cookie, and tied to its address too (a cookie planted in another browser from
    elsewhere does not reach this client's worker). None: every run gets a fresh worker."""
    return scope.get("state", {}).get("worker_key")


def sign(token: str, secret: bytes) -> str:
    """The cookie value for ``token`` (``TOKEN_HEX`` hex digits) under ``secret``."""
    return token + hmac.new(secret, token.encode(), hashlib.sha256).hexdigest()[:32 - TOKEN_HEX]


def issue(secret: bytes) -> str:
    """A new signed cookie value."""
    return sign(secrets.token_hex(TOKEN_HEX // 2), secret)


def verified(value: str, secret: bytes) -> str | None:
    """The token of a cookie value this server signed, else None."""
    if not _VALID.match(value):
        return None
    token = value[:TOKEN_HEX]
    return token if hmac.compare_digest(sign(token, secret), value) else None


@lru_cache(maxsize=8)
def trusted_networks(spec: str) -> tuple:
    """The networks of a ``GRADVIZ_TRUSTED_PROXIES`` value (addresses or CIDRs, comma-separated;
    entries that are neither are ignored)."""
    nets = []
    for item in spec.split(","):
        try:
            nets.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            continue
    return tuple(nets)


def _trusted(addr: str, nets: tuple) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return any(ip in net for net in nets)


def client_address(peer: str, forwarded: list[str], nets: tuple) -> str:
    """The client's address: ``peer``, or when ``peer`` is a trusted proxy, the last address of
    ``X-Forwarded-For`` (``forwarded``: its header values in order) that is no trusted proxy."""
    if not nets or not _trusted(peer, nets):
        return peer
    hops = [h.strip() for value in forwarded for h in value.split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, nets):
            return hop if _is_address(hop) else peer
    return peer


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class ClientMiddleware:
    """Puts the client id in ``scope["state"]["client"]`` (and ``CURRENT``); sets the cookie when
    the request had none this server signed."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        secret, nets = _config(scope)
        addr = _address(scope, nets)
        token = _cookie(scope, secret)
        state = scope.setdefault("state", {})
        if token is not None:
            state["client"], state["worker_key"], new = f"s:{token}@{addr}", f"{token}|{addr}", None
        else:  # counted as the identity it is given, so its record is the browser's from then on
            new = issue(secret)
            state["client"], state["worker_key"] = f"s:{new[:TOKEN_HEX]}@{addr}", None
        CURRENT.set(state["client"])
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


def _config(scope) -> tuple[bytes, tuple]:
    settings = getattr(getattr(scope.get("app"), "state", None), "settings", None)
    if settings is None:
        return client_secret(), ()
    return settings.client_secret, trusted_networks(settings.trusted_proxies)


def _address(scope, nets: tuple) -> str:
    peer = (scope.get("client") or ("?", 0))[0]
    if not nets:
        return peer
    forwarded = [v.decode("latin-1") for k, v in scope.get("headers") or () if k == b"x-forwarded-for"]
    addr = client_address(peer, forwarded, nets)
    if addr != peer:
        scope["client"] = (addr, 0)
    return addr


def _cookie(scope, secret: bytes) -> str | None:
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            jar = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed Cookie header is no identity
                return None
            morsel = jar.get(COOKIE)
            if morsel is not None:
                return verified(morsel.value, secret)
    return None
