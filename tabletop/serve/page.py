"""A view's page as HTML: the conditions, the map, the stands, the minefields, the log.

Written from a ``Snapshot`` alone (what the view may know, already chosen by the views), every
value escaped. The page is whole without JavaScript; ``static/page.js`` only swaps in the
panel and the map again when the game changes. No inline script or style anywhere, so the
Content-Security-Policy can forbid both.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

from tabletop.core.sides import REFEREE
from tabletop.render.events import event_text
from tabletop.rules.cd.compass import point_name
from tabletop.rules.cd.template_info import describe

# The newest entries of the log a page lists (the whole log stays in 'tabletop log').
LOG_SHOWN = 200


def page(snap: Any) -> str:
    title = "Referee" if snap.view == REFEREE else snap.view
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>{escape(title)} · {escape(snap.game)}</title>
<link rel="icon" href="/static/icon.svg">
<link rel="stylesheet" href="/static/page.css">
<script src="/static/page.js" defer></script>
</head>
<body>
<header><h1>{escape(title)}<small> · {escape(snap.game)}</small></h1>\
<span id="live" class="live off" role="status">not live</span></header>
<a id="map-link" href="map.svg"><img id="map" src="map.svg" alt="{escape(title)}'s map of \
the table"></a>
{panel(snap)}
</body>
</html>
"""


def panel(snap: Any) -> str:
    """The part of the page that changes with the game (the map aside)."""
    s = snap.status
    parts = [
        f'<main id="panel" data-digest="{snap.digest}" data-map="{snap.map_digest}">',
        f'<p class="conditions" id="conditions">{escape(_conditions(s))}</p>',
    ]
    stands = s["stands"]
    if snap.view == REFEREE:
        for side in dict.fromkeys(st["side"] for st in stands):
            parts.append(_stands(f"{side}'s stands", [st for st in stands if st["side"] == side]))
    else:
        own = [st for st in stands if st["side"] == snap.view]
        spotted = [st for st in stands if st["side"] != snap.view]
        parts.append(_stands("Our stands", own, css="own"))
        parts.append(_spotted(spotted))
        parts.append(_last_seen(s.get("last_seen", [])))
    parts.append(_minefields(s["minefields"]))
    parts.append(_templates(s["templates"]))
    parts.append(_log(snap.log))
    parts.append("</main>")
    return "\n".join(p for p in parts if p)


def _conditions(s: dict[str, Any]) -> str:
    wind = s["wind"]
    return (
        f"Turn {s['turn']}, {s['phase']} phase · {s['light']}, {s['weather']}"
        f"{', dusty' if s.get('dusty') else ''} · wind from {wind['from']} "
        f"({point_name(wind['from'])}) {wind['force']} · ground {s['ground']}"
    )


def _table(heads: Iterable[str], rows: list[list[str]], css: str) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _section(title: str, inner: str, css: str) -> str:
    return f'<section class="{css}"><h2>{escape(title)}</h2>{inner}</section>'


def _where(st: dict[str, Any]) -> str:
    return "off the table" if st.get("x") is None else f"{st['x']:g},{st['y']:g}"


def _status(st: dict[str, Any]) -> str:
    markers = st.get("markers") or []
    return st["status"] + (" +" + ", ".join(markers) if markers else "")


def _ammo(st: dict[str, Any]) -> str:
    return " ".join(w if v == "ok" else f"{w}: {v}" for w, v in st["ammo"].items()) or "-"


def _stands(title: str, stands: list[dict[str, Any]], css: str = "stands") -> str:
    rows = [[st["id"], st["kind"], _where(st), _status(st), _ammo(st)] for st in stands]
    inner = (
        _table(["stand", "kind", "at", "status", "weapons"], rows, "stands")
        if rows
        else '<p class="none">none</p>'
    )
    return _section(title, inner, css)


def _spotted(stands: list[dict[str, Any]]) -> str:
    rows = [
        [st["id"], st["kind"], _where(st), _status(st), str(st.get("spotted_by", ""))]
        for st in stands
    ]
    inner = (
        _table(["stand", "kind", "at", "status", "seen by"], rows, "stands")
        if rows
        else '<p class="none">none in sight</p>'
    )
    return _section("Enemy in sight now", inner, "spotted")


def _last_seen(marks: list[dict[str, Any]]) -> str:
    if not marks:
        return ""
    rows = [
        [
            m["id"],
            m["kind"],
            f"{m['x']:g},{m['y']:g}",
            f"turn {m['turn']}, {m['phase']}" + (f" ({m['gone']} since)" if m.get("gone") else ""),
        ]
        for m in marks
    ]
    return _section(
        "Last seen", _table(["stand", "kind", "where", "when"], rows, "stands"), "last-seen"
    )


def _minefields(fields: list[dict[str, Any]]) -> str:
    if not fields:
        return ""
    what = {True: "real", False: "dummy", None: "not known if real"}
    rows = [
        [
            f["id"],
            f["side"],
            f"{f['x']:g},{f['y']:g}",
            what[f["real"]] + (", revealed" if f["revealed"] else ""),
        ]
        for f in fields
    ]
    return _section(
        "Minefields", _table(["id", "laid by", "at", "known"], rows, "mines"), "minefields"
    )


def _templates(templates: list[dict[str, Any]]) -> str:
    if not templates:
        return ""
    items = "".join(f"<li>{escape(describe(t))}</li>" for t in templates)
    return _section("On the table", f"<ul>{items}</ul>", "templates")


def _log(entries: list[dict[str, Any]]) -> str:
    shown = entries[-LOG_SHOWN:][::-1]
    items = "".join(
        f'<li id="event-{e["seq"]}"><pre>{escape(event_text(e))}</pre></li>' for e in shown
    )
    note = "newest first" + (f", the last {LOG_SHOWN}" if len(entries) > LOG_SHOWN else "")
    return _section(f"Log ({note})", f'<ol class="log">{items}</ol>', "log")
