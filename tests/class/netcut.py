"""A TCP relay in front of the server whose network can be cut: every open connection is reset and
new ones are closed at once until it is restored, as a student's Wi-Fi dropping out does; or
stalled: the open connections carry nothing more, without a word to either end (a network gone
quiet: a laptop's lid closed, a roaming phone), while new ones work."""

from __future__ import annotations

import socket
import threading

from browser.support import free_port


class NetCut:
    def __init__(self, upstream_port: int):
        self.upstream = ("127.0.0.1", upstream_port)
        self.port = free_port()
        self.down = False
        self.conns: list[socket.socket] = []
        self.stalled: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down:
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if src not in self.stalled:
                    dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.down = True
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def stall(self) -> None:
        with self.lock:
            self.stalled.update(self.conns)

    def restore(self) -> None:
        self.down = False

    def close(self) -> None:
        self.cut()
        self.listener.close()
