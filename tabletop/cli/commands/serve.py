"""tabletop serve: each side's live page, and the referee's, one private link each."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tabletop.cli.core import command, game_option, headline, json_option


@click.command("serve")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="The port to listen on (0: any free port).",
)
@click.option(
    "--lan",
    is_flag=True,
    help="Listen on this machine's network too, so phones on it can open the links "
    "(default: this machine only).",
)
@click.option("--new-links", is_flag=True, help="Retire every old link and make new ones.")
@game_option
@json_option
@command
def cli(port: int, lan: bool, new_links: bool, game: str, as_json: bool) -> None:
    """Each side's live page, and the referee's, until Ctrl-C.

    One private link per side, each with a QR code to scan off the screen: a
    side's page shows its map, its stands with their status and ammunition, the
    enemies it spots now and where it last saw the others, the minefields it
    may see, its own log, and the turn, phase, light, weather and wind, as
    'status', 'map' and 'log' show them with --view SIDE. Each page follows the
    game as commands are logged, from any shell or 'tabletop play'. The server
    only reads the game. Links stay the same from one serve to the next; they
    are kept beside the game file in GAME.links (readable by you alone), never
    in the game file. Only this machine can connect unless --lan is given. With
    --json the first line is {"url": the referee's link, "links": {side: link}}.

    \b
    Example:
      tabletop serve
      tabletop serve --lan --port 8000
      tabletop serve --new-links --json
    """
    from tabletop.core.sides import REFEREE
    from tabletop.serve.links import links_path, load_links
    from tabletop.serve.server import base_url, link, listen, qr_text, run
    from tabletop.serve.snapshot import game_identity

    path = Path(game)
    identity, sides = game_identity(path)
    loaded = load_links(path, identity, sides, renew=new_links)
    links = loaded.links
    sock = listen(lan, port)
    base = base_url(sock, lan)
    urls = {side: link(base, links, side) for side in sides}
    referee = link(base, links, REFEREE)
    if as_json:
        click.echo(json.dumps({"url": referee, "links": urls}, ensure_ascii=False))
    else:
        where = (
            f"on this machine's network at {base} (--lan: anyone on the network who has a "
            "link can open it)"
            if lan
            else f"at {base}, on this machine only (--lan lets phones on your network in)"
        )
        click.echo(headline(f"Serving {path.name} {where}"))
        note = (
            f"New links ({loaded.made})"
            if loaded.made
            else "The same links as before ('--new-links' retires them)"
        )
        click.echo(f"{note}; kept in {links_path(path)}.")
        click.echo("")
        for side in sides:
            click.echo(headline(f"{side}: {urls[side]}"))
            click.echo(qr_text(urls[side]), nl=False)
        # No QR code for the referee's link: players look at this screen.
        click.echo(f"Referee (everything, keep it to yourself): {referee}")
        click.echo("Each link shows one side's view to whoever holds it. Ctrl-C stops.")
    sys.stdout.flush()
    run(path, links, sock)
    if not as_json:
        click.echo("Stopped serving.")
