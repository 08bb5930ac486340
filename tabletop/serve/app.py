"""The players' pages as a Starlette application: ``create_app(game_path, links)``.

Every link is ``/SECRET/`` and the files under it: ``state.json`` (exactly ``status --view
VIEW --json``), ``map.svg`` (``map --view VIEW``), ``panel`` (the page's changing part) and
``events`` (server-sent events: one for each event the view's log gains, undos included, and
one when only what the view sees changed). The secret alone says which view a link shows:
no path or query switches it. An unknown or retired secret, any other path and any method
but GET and HEAD get the same bare 404. Nothing here writes: the game is opened read-only.

One watcher per application notices the game's log moving, whichever process logged it: it
looks at the game file and its write-ahead log every ``POLL`` seconds (two ``stat`` calls)
and reads the log's head only when they changed, or every ``RECHECK`` seconds regardless.
Each view is read once per change and the result shared by all its pages and streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabletop.core.errors import TabletopError
from tabletop.game.rows import read_head
from tabletop.render.events import event_text
from tabletop.serve.links import Links
from tabletop.serve.page import page, panel
from tabletop.serve.snapshot import Body, Snapshot, draw_map, take

POLL = 0.2  # seconds between looks at the game file: a page follows within a second
RECHECK = 2.0  # seconds after which the log's head is read even if the files look the same
PING = 15  # seconds between keep-alive comments on an idle stream
SEND_TIMEOUT = 30.0  # a stream whose reader stops reading for this long is dropped
MAX_PATH = 512  # bytes of a request's path and query; links are about 50
STATIC = Path(__file__).resolve().parent / "static"
STATIC_FILES = {"page.js": "text/javascript", "page.css": "text/css", "icon.svg": "image/svg+xml"}

# No script, style or picture from anywhere but this server, no inline script or style, no
# framing, no forms, no plugins: the page works with no internet at all.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# The map opened on its own (to zoom on a phone): its drawing styles, and nothing else.
MAP_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
HEADERS = {
    "content-security-policy": PAGE_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
}


class GameReplaced(Exception):
    """The game file now holds another game: the links made for the old one serve nothing."""


class Ready:
    """A view's snapshot with its page and panel written, and its map once drawn: shared by
    all the view's pages until the game changes."""

    def __init__(self, snap: Snapshot, page: Body, panel: Body):
        self.snap = snap
        self.page = page
        self.panel = panel
        self._map: Body | None = None
        self._drawing = asyncio.Lock()

    async def map_svg(self) -> Body:
        async with self._drawing:
            if self._map is None:
                self._map = await anyio.to_thread.run_sync(draw_map, self.snap.scene)
            return self._map


def prepare(path: Path, view: str) -> Ready:
    snap = take(path, view)
    return Ready(snap, Body.of(page(snap).encode()), Body.of(panel(snap).encode()))


class Watcher:
    """The game's log head, kept current, and a wake-up for every stream when it moves."""

    def __init__(self, path: Path, head: tuple[int, str]):
        self.path = path
        self.head = head
        self.version = 0
        self._moved = asyncio.Event()
        self._files: tuple[Any, ...] = self._signature()
        self._checked = time.monotonic()

    def _signature(self) -> tuple[Any, ...]:
        out: list[Any] = []
        for file in (self.path, self.path.with_name(self.path.name + "-wal")):
            try:
                info = file.stat()
            except OSError:
                out.append(None)
            else:
                out.append((info.st_ino, info.st_size, info.st_mtime_ns))
        return tuple(out)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(POLL)
            files = self._signature()
            now = time.monotonic()
            if files == self._files and now - self._checked < RECHECK:
                continue
            self._files, self._checked = files, now
            try:
                head = await anyio.to_thread.run_sync(read_head, self.path)
            except TabletopError:
                continue  # busy, or gone for a moment (a game being replaced): look again
            self.notice(head)

    def notice(self, head: tuple[int, str]) -> None:
        if head != self.head:
            self.head = head
            self.version += 1
            moved, self._moved = self._moved, asyncio.Event()
            moved.set()

    async def wait(self, version: int, stop: anyio.Event) -> int | None:
        """Until the head moves past ``version`` (the version now), or ``stop`` is set (None)."""
        while self.version == version:
            if stop.is_set():
                return None
            waits = {asyncio.ensure_future(self._moved.wait()), asyncio.ensure_future(stop.wait())}
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()
        return self.version


class Views:
    """Each view's latest snapshot, read once per change of the game."""

    def __init__(self, path: Path, links: Links, watcher: Watcher):
        self.path = path
        self.links = links
        self.watcher = watcher
        self._ready: dict[str, Ready] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def get(self, view: str) -> Ready:
        ready = self._ready.get(view)
        if ready is not None and ready.snap.head == self.watcher.head[1]:
            return ready
        lock = self._locks.setdefault(view, asyncio.Lock())
        async with lock:
            ready = self._ready.get(view)
            if ready is not None and ready.snap.head == self.watcher.head[1]:
                return ready
            ready = await anyio.to_thread.run_sync(prepare, self.path, view)
            if ready.snap.game_id != self.links.game:
                raise GameReplaced
            self._ready[view] = ready
            if ready.snap.seq > self.watcher.head[0]:
                self.watcher.notice((ready.snap.seq, ready.snap.head))
            return ready


def not_found(*_args: Any) -> Response:
    """The one answer to everything not served: no hint of what exists."""
    return Response("Not Found\n", 404, headers=HEADERS, media_type="text/plain")


def _body(request: Request, body: Body, media_type: str, **extra: str) -> Response:
    headers = {**HEADERS, "vary": "accept-encoding", **extra}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["content-encoding"] = "gzip"
        return Response(body.gzipped, headers=headers, media_type=media_type)
    return Response(body.plain, headers=headers, media_type=media_type)


def create_app(game_path: Path, links: Links) -> Starlette:
    """The application serving ``game_path``'s views to the holders of ``links``."""
    head = read_head(game_path)
    watcher = Watcher(game_path, head)
    views = Views(game_path, links, watcher)
    static = {
        name: Body.of((STATIC / name).read_bytes()) for name in STATIC_FILES
    }  # read once: no file is looked up on a request

    def linked(
        handler: Callable[[Request, str], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            view = links.view_of(request.path_params["secret"])
            if view is None:
                return not_found()
            try:
                return await handler(request, view)
            except GameReplaced:
                return not_found()
            except TabletopError:
                # The game busy beyond the wait, or its file gone: nothing to show now.
                return Response("Busy, try again\n", 503, headers=HEADERS, media_type="text/plain")

        return endpoint

    async def home(request: Request, view: str) -> Response:
        return RedirectResponse(f"/{request.path_params['secret']}/", 308, headers=HEADERS)

    async def page_of(request: Request, view: str) -> Response:
        return _body(request, (await views.get(view)).page, "text/html")

    async def panel_of(request: Request, view: str) -> Response:
        return _body(request, (await views.get(view)).panel, "text/html")

    async def state_of(request: Request, view: str) -> Response:
        return _body(request, (await views.get(view)).snap.state_json, "application/json")

    async def map_of(request: Request, view: str) -> Response:
        picture = await (await views.get(view)).map_svg()
        return _body(request, picture, "image/svg+xml", **{"content-security-policy": MAP_POLICY})

    async def events_of(request: Request, view: str) -> Response:
        first = await views.get(view)  # a replaced game is a 404 here, not an empty stream
        # Set when the server is told to stop (Ctrl-C): the stream then ends as a stream
        # should, instead of being cut off mid-response.
        stopping = anyio.Event()

        async def stream() -> AsyncIterator[dict[str, str]]:
            snap = first.snap
            yield _sse("hello", snap, None)
            while True:
                version = watcher.version
                if watcher.head[1] == snap.head:
                    if await watcher.wait(version, stopping) is None:
                        return
                else:
                    # The game moved while this stream started or the view was read:
                    # read it again, after a breath so a disagreement cannot spin.
                    await asyncio.sleep(POLL / 4)
                try:
                    now = (await views.get(view)).snap
                except (GameReplaced, TabletopError):
                    # A new game in the file, or the file busy or gone: end the stream.
                    # The page's EventSource comes back by itself and says hello with
                    # what it shows by then (or gets the 404 of a retired link).
                    return
                new = now.log_after(snap.last_logged)
                for entry in new:
                    yield _sse("logged", now, entry)
                if not new and now.digest != snap.digest:
                    yield _sse("changed", now, None)
                snap = now

        return EventSourceResponse(
            stream(),
            headers=HEADERS,
            ping=PING,
            send_timeout=SEND_TIMEOUT,
            shutdown_event=stopping,
            shutdown_grace_period=1.0,
        )

    async def static_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in static:
            return not_found()
        return _body(request, static[name], STATIC_FILES[name])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(watcher.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    routes = [
        Route("/static/{name}", static_file),
        Route("/{secret}", linked(home)),
        Route("/{secret}/", linked(page_of)),
        Route("/{secret}/panel", linked(panel_of)),
        Route("/{secret}/state.json", linked(state_of)),
        Route("/{secret}/map.svg", linked(map_of)),
        Route("/{secret}/events", linked(events_of)),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found},
        lifespan=lifespan,
    )
    # One answer for whatever is not served, a path with a slash too many included.
    app.router.redirect_slashes = False
    app.state.watcher = watcher
    app.add_middleware(Guard)
    return app


def _sse(kind: str, snap: Snapshot, entry: dict[str, Any] | None) -> dict[str, str]:
    # Only the digest of what the page shows (and the event, when the view's log gained
    # one): never the log's head, whose number would count the events the view may not see.
    data: dict[str, Any] = {"digest": snap.digest, "map": snap.map_digest}
    out = {"event": kind}
    if entry is not None:
        data.update(event=entry["seq"], command=entry["command"], text=event_text(entry))
        out["id"] = str(entry["seq"])
    out["data"] = json.dumps(data, ensure_ascii=False)
    return out


class Guard:
    """What every request meets first: only GET and HEAD, no body, a short path.

    uvicorn already bounds the request line and headers; nothing here reads a body, and a
    request that announces one is answered at once, before anything else looks at it."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"0").strip() or b"0"
        too_long = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b"")) > MAX_PATH
        if (
            scope["method"] not in ("GET", "HEAD")
            or length != b"0"
            or b"transfer-encoding" in headers
            or too_long
        ):
            await not_found()(scope, _nothing, send)
            return
        await self.app(scope, receive, send)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}
