"""This Django project served over HTTP on a fixed loopback port, stopped and started
again at will (pytest-django's live_server cannot be stopped): what Label Studio's webhooks
call, and what goes quiet while "our server is down"."""

from __future__ import annotations

from typing import Any

from django.core.servers.basehttp import ThreadedWSGIServer
from django.test.testcases import (
    LiveServerThread,
    QuietWSGIRequestHandler,
    _StaticFilesHandler,
)


class _ReusableServerThread(LiveServerThread):
    def _create_server(self, connections_override: Any = None) -> ThreadedWSGIServer:
        # The port is taken again right after a stop: allow its TIME_WAIT sockets.
        return self.server_class(
            (self.host, self.port),
            QuietWSGIRequestHandler,
            allow_reuse_address=True,
            connections_override=connections_override,
        )


class StoppableServer:
    def __init__(self, port: int) -> None:
        self.port = port
        self.thread: _ReusableServerThread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        thread = _ReusableServerThread("127.0.0.1", _StaticFilesHandler, port=self.port)
        thread.daemon = True
        thread.start()
        thread.is_ready.wait()
        if thread.error:
            raise thread.error
        self.thread = thread

    def stop(self) -> None:
        if self.thread is not None:
            self.thread.terminate()
            self.thread = None
