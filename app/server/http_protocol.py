"""uvicorn's HTTP protocol with TCP_NODELAY on every connection.

asyncio turns Nagle's algorithm off only for sockets whose ``proto`` is IPPROTO_TCP; the listening
socket uvicorn hands to its worker processes (``--workers N``) comes back with proto 0, so every
small keep-alive answer waited ~40 ms for the client's delayed ACK. Setting it here holds however
the socket was made.
"""

from __future__ import annotations

import socket

from uvicorn.protocols.http.auto import AutoHTTPProtocol


class NoDelayHTTPProtocol(AutoHTTPProtocol):
    def connection_made(self, transport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        super().connection_made(transport)
