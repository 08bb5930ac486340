"""Running the pages: the listening socket, the addresses printed, uvicorn, the QR codes."""

from __future__ import annotations

import contextlib
import errno
import io
import socket
from pathlib import Path

import segno
import uvicorn

from tabletop.core.errors import BadInput
from tabletop.serve.app import create_app
from tabletop.serve.links import Links

LOOPBACK = "127.0.0.1"
EVERYWHERE = "0.0.0.0"
# Connections at once (each page's stream holds one): plenty for a club's tables, and a
# bound on what a flood of them can take; past it, uvicorn answers 503 at once.
MAX_CONNECTIONS = 512
# A whole request's line and headers (uvicorn's h11 limit); nothing here takes a body.
MAX_HEAD_BYTES = 16 * 1024


def listen(lan: bool, port: int) -> socket.socket:
    """The listening socket: on the loopback, or on every interface with ``lan``."""
    host = EVERYWHERE if lan else LOOPBACK
    try:
        return socket.create_server((host, port), backlog=MAX_CONNECTIONS)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise BadInput(
                f"--port {port}: the port is in use (another 'tabletop serve'?); choose "
                "another with --port, or --port 0 for any free one"
            ) from None
        raise BadInput(f"--port {port}: cannot listen there ({exc.strerror})") from None


def lan_address() -> str:
    """This machine's address on its network, as a phone on the same network reaches it.

    Asking the system which address it would send from (a UDP socket 'connected' to a
    private address sends nothing)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 1))
        address = str(probe.getsockname()[0])
        if not address.startswith("0."):
            return address
    with contextlib.suppress(OSError):
        return socket.gethostbyname(socket.gethostname())
    return LOOPBACK


def base_url(sock: socket.socket, lan: bool) -> str:
    port = sock.getsockname()[1]
    return f"http://{lan_address() if lan else LOOPBACK}:{port}"


def link(base: str, links: Links, view: str) -> str:
    return f"{base}/{links.secret_of(view)}/"


def qr_text(url: str) -> str:
    """The link as a QR code drawn with block characters, for a phone to scan off the screen."""
    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def run(game: Path, links: Links, sock: socket.socket) -> None:
    """Serve until Ctrl-C (or SIGTERM): open streams are ended, then the socket closed."""
    config = uvicorn.Config(
        create_app(game, links),
        log_level="warning",
        access_log=False,
        lifespan="on",
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=3,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        server_header=False,
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn hands the Ctrl-C on once it has shut down: that is the way out
    finally:
        sock.close()
