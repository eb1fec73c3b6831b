"""A real HTTP receiver for webhook tests: ``http.server`` in a thread on 127.0.0.1.

It answers each POST with the next scripted status (then 200) and records the request.
"""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str = ""
    port: int = 0
    script: list[int] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_status(self) -> int:
        with self.lock:
            return self.script.pop(0) if self.script else 200


@contextmanager
def running_receiver(
    script: list[int] | None = None, *, tls: ssl.SSLContext | None = None
) -> Iterator[Receiver]:
    """A receiver on 127.0.0.1; with ``tls`` (a server context), it speaks https."""
    receiver = Receiver(script=list(script or []))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            receiver.requests.append(Received(self.path, dict(self.headers.items()), body))
            status = receiver.next_status()
            answer = f'{{"received": true, "status": {status}}}'.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            return  # keep test output clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    host, port = server.server_address[:2]
    receiver.port = int(port)
    receiver.url = f"{'https' if tls else 'http'}://{host}:{port}/hooks/agreement"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
