"""Content-Security-Policy of every HTML page gradviz gives out.

The served page runs only its own module files (``script-src 'self'``: no inline script, no eval);
a file that must carry its code inline (the page as one file: Save as HTML, ``gradviz render``, the
notebook's player) allows exactly its own inline scripts by their SHA-256 (``offline_policy``, in a
``<meta>`` of the file). Styles may be inline (the page writes the drawing's ``<style>`` into its
SVG, so an exported drawing keeps its look; a file inlines its stylesheets). FastAPI's API docs load
Swagger UI from its CDN and get their own policy (``docs_policy``).
"""

from __future__ import annotations

import base64
import hashlib
import re

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; "
               "base-uri 'none'; form-action 'self'; frame-ancestors 'self'")
HEADER = "Content-Security-Policy"
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", re.S | re.I)
_DATA_TYPE = re.compile(r'\btype="application/json"', re.I)


def script_hash(code: str) -> str:
    """The CSP source expression that allows an inline script whose text is ``code``."""
    digest = hashlib.sha256(code.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def inline_scripts(html: str) -> list[str]:
    """The texts of the inline scripts of ``html`` that run (not the JSON data blocks)."""
    return [m.group(2) for m in _INLINE_SCRIPT.finditer(html) if not _DATA_TYPE.search(m.group(1))]


def offline_policy(scripts: list[str]) -> str:
    """The policy of a page that is one file: exactly ``scripts`` may run; nothing is fetched but
    from where it was opened (a ``file://`` page fetches nothing). No ``frame-ancestors``: a
    ``<meta>`` policy cannot carry it (the notebook frames the file in a sandboxed iframe)."""
    hashes = " ".join(sorted({script_hash(s) for s in scripts})) or "'none'"
    return (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data: blob:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'")


def docs_policy(html: str) -> str:
    """The policy of one of FastAPI's API doc pages: its own inline scripts, its CDN's files."""
    hashes = "".join(f" {h}" for h in sorted({script_hash(s) for s in inline_scripts(html)}))
    cdn = "https://cdn.jsdelivr.net"
    return (f"default-src 'self'; script-src 'self' {cdn}{hashes}; "
            f"style-src 'self' 'unsafe-inline' {cdn}; img-src 'self' data: https://fastapi.tiangolo.com; "
            f"font-src 'self' {cdn}; worker-src blob:; connect-src 'self'; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'")


class CspMiddleware:
    """Every HTML response without a policy of its own gets the page's (ASGI: the body is not read)."""

    def __init__(self, app, policy: str = PAGE_POLICY):
        self.app = app
        self.policy = policy.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_policy(message):
            if message["type"] == "http.response.start":
                headers = message.get("headers") or []
                names = {k.lower() for k, _ in headers}
                kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if kind.startswith(b"text/html") and b"content-security-policy" not in names:
                    message = dict(message, headers=[*headers, (b"content-security-policy", self.policy)])
            await send(message)

        await self.app(scope, receive, send_with_policy)
