"""The private links: one secret per side and one for the referee.

The secrets live beside the game file, in ``GAME.links``, which only its owner may read or
write (0600); never in the game file or its log, which get handed round after a battle. The
same links serve again after a restart; ``--new-links`` retires them all. The file names the
game it belongs to (the hash of its first event): a new game started in the same file gets
new links, so a link to an old battle never opens a new one.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from tabletop.core.errors import BadInput
from tabletop.core.sides import REFEREE

SUFFIX = ".links"
FORMAT = 1
# 32 random bytes: 256 bits, twice the 128 the links must carry at least.
SECRET_BYTES = 32
MODE = 0o600


def links_path(game: Path) -> Path:
    return game.with_name(game.name + SUFFIX)


@dataclass(frozen=True)
class Links:
    """Each view's secret (the referee's and one per side), for one game."""

    game: str  # the hash of the game's first event
    secrets: dict[str, str]  # view name -> secret

    def view_of(self, secret: str) -> str | None:
        """The view a link's secret opens, or None.

        Every secret is compared, each in constant time, whichever matches: how long the
        answer takes says nothing of which secret a guess came near."""
        guess = secret.encode("utf-8", "surrogatepass")
        found = None
        for view, known in self.secrets.items():
            if hmac.compare_digest(known.encode("ascii"), guess):
                found = view
        return found

    def secret_of(self, view: str) -> str:
        return self.secrets[view]


@dataclass(frozen=True)
class Loaded:
    links: Links
    made: str | None  # why new links were made (None: the old ones serve again)


def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def load_links(game: Path, game_id: str, sides: list[str], *, renew: bool) -> Loaded:
    """The game's links: the ones kept beside it, or new ones (``renew``, none kept yet, or
    kept for another game), written before they are returned."""
    path = links_path(game)
    views = [REFEREE, *sides]
    made: str | None = None
    kept = None if renew else _read(path)
    if renew:
        made = "--new-links: every old link is retired"
    elif kept is None:
        made = "first serve of this game"
    elif kept.game != game_id:
        made = "the game file holds a new game: the old game's links are retired"
    if made is not None or kept is None:
        links = Links(game_id, {view: new_secret() for view in views})
    else:
        # A side the file does not name yet (the scenario's sides do not change in a game,
        # but an older file may lack one) gets its own new secret; the others keep theirs.
        links = Links(game_id, {v: kept.secrets.get(v) or new_secret() for v in views})
        if links.secrets == kept.secrets:
            return Loaded(links, None)
        made = "a side had no link yet"
    _write(path, links)
    return Loaded(links, made)


def _read(path: Path) -> Links | None:
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BadInput(f"cannot read the links file {str(path)!r} ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"{str(path)!r} should be the game's links file, but is not a file")
    if info.st_mode & 0o077:
        raise BadInput(
            f"the links file {str(path)!r} may be read by other users "
            f"(mode {stat.S_IMODE(info.st_mode):o}): its links may be known; retire them "
            "with 'tabletop serve --new-links'"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        found = data["links"]
        game = data["game"]
        if data.get("format") != FORMAT or not isinstance(game, str):
            raise ValueError
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise BadInput(
            f"the links file {str(path)!r} is not one tabletop wrote: make new links with "
            "'tabletop serve --new-links'"
        ) from None
    return Links(game, dict(found))


def _write(path: Path, links: Links) -> None:
    """Written whole or not at all: a new file made 0600 from the start, renamed into place."""
    text = json.dumps(
        {"format": FORMAT, "game": links.game, "links": links.secrets}, indent=2, sort_keys=True
    )
    temp = path.with_name(f".{path.name}.new-{os.getpid()}")
    try:
        temp.unlink(missing_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        raise BadInput(
            f"cannot write the links file {str(path)!r} ({exc.strerror}): serve needs to "
            "keep the links beside the game"
        ) from None
