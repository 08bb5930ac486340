"""One view of the game at one moment: everything its page shows, read once and shared.

What a view may know comes from ``rules/views`` through the game (``Game.knowledge``,
``Game.events_for``) and from ``render`` (``status_data``, the map's scene), exactly as
``status --view SIDE --json``, ``map --view SIDE`` and ``log --view SIDE`` get it: nothing
here decides again what a side sees. The game is opened read-only, and everything is read
inside one read transaction, so a snapshot is one consistent moment however the referee
writes meanwhile.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import threading
from contextlib import closing
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tabletop.core.sides import REFEREE
from tabletop.game.engine import Game
from tabletop.render.draw import write
from tabletop.render.events import event_json
from tabletop.render.scene import Scene, build_scene
from tabletop.render.status import status_data

# The rendering libraries are not all safe to drive from two threads at once; one snapshot
# is made at a time (each takes some tens of milliseconds, and is shared by every page of
# its view until the game changes).
_MAKING = threading.Lock()


@dataclass(frozen=True)
class Body:
    """A response body kept ready, plain and gzipped (made once, sent to every page)."""

    plain: bytes
    gzipped: bytes = field(repr=False)

    @classmethod
    def of(cls, data: bytes) -> Body:
        return cls(data, gzip.compress(data, compresslevel=6, mtime=0))


@dataclass(frozen=True)
class Snapshot:
    view: str
    game_id: str  # the hash of the game's first event: which game it is
    seq: int  # the log's last event when it was read
    head: str  # that event's hash
    game: str  # the game's name
    status: dict[str, Any]  # as 'status --view VIEW --json' gives it
    log: list[dict[str, Any]]  # as 'log --view VIEW --json' gives each event
    state_json: Body
    scene: Scene = field(repr=False)  # the map, drawn when a page first asks for it
    digest: str  # of everything the page shows: equal digests, equal pages
    map_digest: str  # of what the map shows (its scene)

    def log_after(self, seq: int) -> list[dict[str, Any]]:
        return [e for e in self.log if e["seq"] > seq]

    @property
    def last_logged(self) -> int:
        """The number of the last event this view's log shows (0 for none)."""
        return self.log[-1]["seq"] if self.log else 0


def dumps(data: Any) -> str:
    """JSON as ``--json`` prints it."""
    return json.dumps(data, indent=2, ensure_ascii=False, default=_default)


def _default(value: Any) -> Any:
    # As the command line's JSON writes them (tabletop.cli.core.emit_json).
    if isinstance(value, Fraction):
        return float(value)
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def take(path: Path, view: str) -> Snapshot:
    """What ``view`` (the referee, or a side) may know of the game now."""
    with _MAKING, closing(Game.open_read_only(path)) as game:
        seq, head = game.head()
        game_id = game.origin()
        ctx = game.context()
        known = game.knowledge(view, ctx)
        if view == REFEREE:
            # As 'status' reads the referee's: everything, no views loaded.
            status = status_data(ctx.state, view)
            events: list[Any] = game.events()
        else:
            status = status_data(ctx.state, view, known, ctx.scenario)
            events = game.events_for(known)
        log = [event_json(ev) for ev in events]
        scene = build_scene(ctx, game.info.name, view, known=known)
        name = game.info.name
    state_text = (dumps(status) + "\n").encode("utf-8")
    # The scene is plain data (shapes, labels, conditions): equal scenes, equal pictures.
    map_digest = hashlib.sha256(repr(scene).encode("utf-8")).hexdigest()
    digest = hashlib.sha256(
        b"\0".join([state_text, dumps(log).encode("utf-8"), map_digest.encode()])
    ).hexdigest()
    return Snapshot(
        view=view,
        game_id=game_id,
        seq=seq,
        head=head,
        game=name,
        status=status,
        log=log,
        state_json=Body.of(state_text),
        scene=scene,
        digest=digest[:32],
        map_digest=map_digest[:32],
    )


def draw_map(scene: Scene) -> Body:
    """The map as SVG (``map --view VIEW`` draws the same): a few tenths of a second on a
    large table, so only once a page asks for it, and once for all the view's pages."""
    buffer = io.BytesIO()
    with _MAKING:
        write(scene, buffer, "svg")
    return Body.of(buffer.getvalue())


def game_identity(path: Path) -> tuple[str, list[str]]:
    """The hash of the game's first event (which game this is) and its sides."""
    with closing(Game.open_read_only(path)) as game:
        return game.origin(), list(game.loaded.scenario.side_names())
