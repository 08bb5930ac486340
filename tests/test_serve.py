"""The players' live pages (issue 31): what each link may see, the links and their file, the
server's promises (read-only, 404 without a hint, strict CSP, bounded requests), a real
server followed by its event stream while another process logs, a bounded load, and a real
browser following a side's page as a move is logged.

The views themselves are tested in test_views.py; here each page is checked to show a side
exactly what those views give it (``state.json`` is ``status --view SIDE --json`` byte for
byte) and nothing more, on the same table with the same secrets.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from tabletop.cli import cli
from tabletop.core.errors import BadInput
from tabletop.serve.app import PAGE_POLICY, create_app
from tabletop.serve.links import SUFFIX, Links, links_path, load_links
from tabletop.serve.server import base_url, listen
from tabletop.serve.snapshot import game_identity
from tests.conftest import file_digest
from tests.test_fuzz import contents, wrong_games
from tests.test_views import NEVER_SEEN, assert_hidden, hidden_table, invoke

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parent.parent


# --- the table: test_views's, and a plain roll of the referee's ------------------------------


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Crossroads with a referee-only lake, a real and a dummy German minefield and a US one,
    G-2 moved out of American sight by the referee, and a plain roll (the referee's)."""
    game = hidden_table(tmp_path_factory.mktemp("serve"))
    invoke(game, "roll", "3d10", "--for", "ambush check")
    return game


@pytest.fixture(scope="module")
def served(table: Path) -> Iterator[tuple[TestClient, Links]]:
    game_id, sides = game_identity(table)
    links = load_links(table, game_id, sides, renew=False).links
    with TestClient(create_app(table, links), base_url="http://127.0.0.1") as client:
        yield client, links


def url(links: Links, view: str, rest: str = "") -> str:
    return f"/{links.secret_of(view)}/{rest}"


PAGES = ["", "panel", "state.json", "map.svg"]


# --- what each link may see ----------------------------------------------------------------


@pytest.mark.parametrize("rest", PAGES)
def test_a_sides_link_shows_nothing_it_may_not_know(
    served: tuple[TestClient, Links], rest: str
) -> None:
    client, links = served
    reply = client.get(url(links, "USA", rest))
    assert reply.status_code == 200
    assert_hidden(reply.text)
    assert "ambush check" not in reply.text  # the referee's plain roll


@pytest.mark.parametrize("rest", PAGES)
def test_the_referees_link_shows_what_the_sides_may_not(
    served: tuple[TestClient, Links], rest: str
) -> None:
    """The checks above can fail: the referee's page holds the secrets they look for."""
    client, links = served
    text = client.get(url(links, "referee", rest)).text
    assert all(stand in text for stand in NEVER_SEEN)
    if rest == "map.svg":
        assert 'id="terrain-weak-ice-7"' in text
    if rest in ("", "panel"):
        assert "ambush check" in text and "place stand=G-2 x=22 y=21" in text


@pytest.mark.parametrize("view", ["USA", "Germany", "referee"])
def test_state_json_is_status_view_json_byte_for_byte(
    served: tuple[TestClient, Links], table: Path, view: str
) -> None:
    client, links = served
    assert (
        client.get(url(links, view, "state.json")).text
        == invoke(table, "status", "--view", view, "--json").output
    )


@pytest.mark.parametrize("view", ["USA", "Germany"])
def test_a_sides_map_is_map_view_side(
    served: tuple[TestClient, Links], table: Path, view: str
) -> None:
    client, links = served
    svg = client.get(url(links, view, "map.svg")).text
    assert svg == invoke(table, "map", "--view", view, "--out", "-").output


def test_a_sides_page_lists_its_stands_the_enemy_in_sight_and_minefields(
    served: tuple[TestClient, Links],
) -> None:
    client, links = served
    text = client.get(url(links, "USA", "panel")).text
    assert (
        "<tr><td>US-4</td><td>tank</td><td>30,6</td><td>ok</td>"
        "<td>us-37mm-m6 us-75mm-m2</td></tr>" in text
    )
    assert "<tr><td>G-1</td><td>infantry</td><td>18,27</td><td>ok</td><td>US-1</td></tr>" in text
    # G-2, seen at the start, now out of sight: where and when it was last seen.
    assert "<tr><td>G-2</td><td>infantry</td><td>10,24</td><td>turn 1, movement</td></tr>" in text
    # The German fields: both "not known if real"; its own: real.
    assert text.count("not known if real") == 2
    assert "<td>USA</td><td>20,30</td><td>real</td>" in text
    assert "Turn 1, movement phase · day, clear · wind from 3 (E) light · ground dry" in text


def test_germany_knows_its_dummy_and_not_the_american_field(
    served: tuple[TestClient, Links],
) -> None:
    client, links = served
    fields = client.get(url(links, "Germany", "state.json")).json()["minefields"]
    assert [(f["side"], f["real"]) for f in fields] == [
        ("Germany", True),
        ("Germany", False),
        ("USA", None),
    ]


def test_a_sides_log_keeps_its_own_acts_and_not_the_referees(
    served: tuple[TestClient, Links],
) -> None:
    client, links = served
    text = client.get(url(links, "USA", "panel")).text
    assert "minefield-place at=20,30 pregame side=USA -&gt; minefield" in text  # its own
    assert "place stand=G-2" not in text and "roll" not in text.split('class="log"')[1]


# --- the links ---------------------------------------------------------------------------


def test_links_are_long_random_kept_0600_beside_the_game_and_never_in_it(
    served: tuple[TestClient, Links], table: Path
) -> None:
    _, links = served
    path = links_path(table)
    assert path.name == table.name + SUFFIX
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert sorted(links.secrets) == ["Germany", "USA", "referee"]
    assert len(set(links.secrets.values())) == 3
    assert all(len(s) == 43 for s in links.secrets.values())  # 32 bytes, base64: 256 bits
    kept = table.read_bytes() + file_digest(table)
    assert not any(s.encode() in kept for s in links.secrets.values())


def test_links_stay_across_restarts_and_new_links_retires_them(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    invoke(game, "new", "crossroads", "--seed", "1")
    game_id, sides = game_identity(game)
    first = load_links(game, game_id, sides, renew=False)
    again = load_links(game, game_id, sides, renew=False)
    assert first.made == "first serve of this game" and again.made is None
    assert again.links == first.links
    renewed = load_links(game, game_id, sides, renew=True).links
    assert set(renewed.secrets.values()).isdisjoint(first.links.secrets.values())
    assert first.links.view_of(first.links.secret_of("USA")) == "USA"
    assert renewed.view_of(first.links.secret_of("USA")) is None
    # A new game in the same file: the old game's links open nothing of it.
    invoke(game, "new", "crossroads", "--seed", "2", "--force")
    new_id, _ = game_identity(game)
    made = load_links(game, new_id, sides, renew=False)
    assert made.made == "the game file holds a new game: the old game's links are retired"
    assert set(made.links.secrets.values()).isdisjoint(renewed.secrets.values())


def test_a_running_server_shows_nothing_of_a_new_game_started_in_its_file(
    tmp_path: Path,
) -> None:
    game = tmp_path / "g.sqlite"
    invoke(game, "new", "crossroads", "--seed", "1")
    game_id, sides = game_identity(game)
    links = load_links(game, game_id, sides, renew=False).links
    app = create_app(game, links)
    with TestClient(app) as client:
        assert client.get(url(links, "USA", "state.json")).status_code == 200
        before = app.state.watcher.head
        invoke(game, "new", "crossroads", "--seed", "2", "--force")
        deadline = time.monotonic() + 5
        while app.state.watcher.head == before and time.monotonic() < deadline:
            time.sleep(0.02)  # the watcher's next look (every 0.2 s)
        gone = [client.get(url(links, view, rest)) for view in links.secrets for rest in PAGES]
    assert {(r.status_code, r.text) for r in gone} == {(404, "Not Found\n")}


def test_a_links_file_others_may_read_is_refused(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    invoke(game, "new", "crossroads", "--seed", "1")
    game_id, sides = game_identity(game)
    load_links(game, game_id, sides, renew=False)
    links_path(game).chmod(0o644)
    with pytest.raises(BadInput, match=r"may be read by other users \(mode 644\): its links may"):
        load_links(game, game_id, sides, renew=False)
    assert oct(links_path(game).stat().st_mode & 0o777) == "0o644"  # left for the owner


@pytest.mark.parametrize(
    "guess", ["", "x", "USA", "referee", "é" * 43, "A" * 43, "\udcff"], ids=repr
)
def test_a_guess_opens_no_view(served: tuple[TestClient, Links], guess: str) -> None:
    _, links = served
    assert links.view_of(guess) is None
    assert links.view_of(links.secret_of("USA")[:-1]) is None
    assert links.view_of(links.secret_of("USA") + "A") is None


# --- what the server answers -------------------------------------------------------------


def test_unknown_retired_and_odd_requests_get_the_same_bare_404(
    served: tuple[TestClient, Links], table: Path
) -> None:
    client, links = served
    usa = links.secret_of("USA")
    before = file_digest(table)
    answers = [
        client.get("/"),
        client.get("/" + "A" * 43 + "/"),
        client.get("/" + "A" * 43 + "/state.json"),
        client.get(f"/{usa}/nothing"),
        client.get(f"/{usa}/state.json/"),
        client.get("/static/app.py"),
        client.get("/static/%2e%2e%2fapp.py"),
        client.get("/static/..%2fapp.py"),
        client.get(f"/{usa}/%2e%2e/{links.secret_of('referee')}/"),
        client.post(f"/{usa}/", content=b"x"),
        client.put(f"/{usa}/state.json", content=b"{}"),
        client.delete(f"/{usa}/"),
        client.request("GET", f"/{usa}/", content=b"a body"),
        client.get(f"/{usa}/?" + "q" * 600),
    ]
    assert [a.status_code for a in answers] == [404] * len(answers)
    assert {a.text for a in answers} == {"Not Found\n"}
    assert all(a.headers["content-security-policy"] == PAGE_POLICY for a in answers)
    assert file_digest(table) == before


@pytest.mark.parametrize("query", ["?view=referee", "?view=Germany&side=Germany", "?"])
def test_no_query_switches_the_view(served: tuple[TestClient, Links], query: str) -> None:
    client, links = served
    plain = client.get(url(links, "USA", "state.json")).content
    assert client.get(url(links, "USA", "state.json") + query).content == plain


def test_pages_send_a_strict_policy_and_load_nothing_from_elsewhere(
    served: tuple[TestClient, Links],
) -> None:
    client, links = served
    reply = client.get(url(links, "USA"))
    assert reply.headers["content-security-policy"] == (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    assert reply.headers["referrer-policy"] == "no-referrer"
    assert reply.headers["cache-control"] == "no-store"
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert "http:" not in reply.text and "https:" not in reply.text and "//" not in reply.text
    assert (
        "<script>" not in reply.text and " style=" not in reply.text and "<style" not in reply.text
    )
    for name, kind in (("page.js", "text/javascript"), ("page.css", "text/css")):
        static = client.get(f"/static/{name}")
        assert static.status_code == 200 and static.headers["content-type"].startswith(kind)
        assert "http:" not in static.text and "https:" not in static.text


def test_a_link_without_its_slash_goes_to_the_page(served: tuple[TestClient, Links]) -> None:
    client, links = served
    reply = client.get(f"/{links.secret_of('USA')}", follow_redirects=False)
    assert (reply.status_code, reply.headers["location"]) == (
        308,
        f"/{links.secret_of('USA')}/",
    )


def test_pages_come_gzipped_when_asked(served: tuple[TestClient, Links]) -> None:
    client, links = served
    reply = client.get(url(links, "USA", "map.svg"), headers={"accept-encoding": "gzip"})
    assert reply.headers["content-encoding"] == "gzip"
    assert int(reply.headers["content-length"]) < len(reply.content) / 4


# --- the command ---------------------------------------------------------------------------


def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    invoke(game, "new", "crossroads", "--seed", "1")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port), "--game", str(game)])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: --port {port}: the port is in use (another 'tabletop serve'?); choose another "
        "with --port, or --port 0 for any free one\n"
    )


@pytest.mark.parametrize(
    ("port", "says"),
    [
        ("-1", "-1 is out of range: give a whole number from 0 to 65535"),
        ("65536", "65536 is out of range: give a whole number from 0 to 65535"),
        ("http", "'http' is not a whole number"),
    ],
)
def test_serve_refuses_a_port_that_is_none(port: str, says: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", "--port", port, "--game", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        f"Error: Invalid value for '--port': {says} (see 'tabletop serve --help')"
    )


def test_serve_refuses_a_game_file_that_is_not_one(tmp_path: Path) -> None:
    """The fuzz's wrong games (test_fuzz.py leaves serve out: a good line serves until
    stopped): one line naming the file, exit 2, the file untouched, no links file made."""
    base = tmp_path / "base.sqlite"
    invoke(base, "new", "crossroads", "--seed", "1")
    for what, target in wrong_games(tmp_path, base).items():
        before = contents(target)
        result = CliRunner().invoke(cli, ["serve", "--port", "0", "--game", str(target)])
        assert result.exit_code == 2, (what, result.output)
        lines = result.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and target.name in lines[0]
        assert contents(target) == before, what
        assert not links_path(target).exists(), what


def test_it_listens_on_the_loopback_unless_told_lan() -> None:
    with listen(False, 0) as alone, listen(True, 0) as shared:
        assert alone.getsockname()[0] == "127.0.0.1"
        assert shared.getsockname()[0] == "0.0.0.0"
        assert base_url(alone, False) == f"http://127.0.0.1:{alone.getsockname()[1]}"
        assert base_url(shared, True).endswith(f":{shared.getsockname()[1]}")


def test_serve_without_a_game_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", "--game", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 2
    assert result.output.startswith("Error: no game at ")
    assert not links_path(tmp_path / "none.sqlite").exists()


# --- a real server, another process logging --------------------------------------------------


class Server:
    def __init__(self, game: Path):
        argv = ["serve", "--port", "0", "--json", "--game", str(game)]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tabletop", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        if not first:
            raise AssertionError(self.process.stderr.read() if self.process.stderr else "")
        self.first = json.loads(first)

    def link(self, side: str) -> str:
        links: dict[str, str] = self.first["links"]
        return links[side]

    def stop(self) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=10)
        return self.process.returncode, out, err


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    game = tmp_path_factory.mktemp("live") / "game.sqlite"
    invoke(game, "new", "crossroads", "--seed", "1")
    server = Server(game)
    try:
        yield server, game
    finally:
        server.stop()


def sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The events of a server-sent event stream, as {event, id, data}."""
    event: dict[str, Any] = {}
    for line in lines:
        if not line:
            if "data" in event:
                yield event
            event = {}
        elif line.startswith(("event:", "id:", "data:")):
            key, _, value = line.partition(":")
            event[key] = json.loads(value) if key == "data" else value.strip()


def test_the_first_line_names_every_link(live: tuple[Server, Path]) -> None:
    server, game = live
    assert sorted(server.first) == ["links", "url"]
    assert sorted(server.first["links"]) == ["Germany", "USA"]
    secrets = json.loads(links_path(game).read_text())["links"]
    for view, secret in secrets.items():
        link = server.first["url"] if view == "referee" else server.link(view)
        assert link.startswith("http://127.0.0.1:") and link.endswith(f"/{secret}/")


def test_a_stream_follows_moves_logged_by_another_process(live: tuple[Server, Path]) -> None:
    server, game = live
    with (
        httpx.Client(timeout=10) as client,
        client.stream("GET", server.link("USA") + "events") as stream,
    ):
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = sse(stream.iter_lines())
        hello = next(events)
        assert hello["event"] == "hello"
        invoke(game, "move", "US-1", "18,9")
        logged_at = time.monotonic()
        moved = next(events)
        waited = time.monotonic() - logged_at
        assert (moved["event"], moved["id"], moved["data"]["command"]) == (
            "logged",
            "2",
            "move",
        )
        assert moved["data"]["text"].startswith("#2 turn 1 movement: move stand=US-1 to=18,9")
        assert waited < 1.0, f"the page heard of the move after {waited:.2f} s"
        invoke(game, "undo")
        undone = next(events)
        assert (undone["event"], undone["data"]["command"]) == ("logged", "undo")
        # An enemy's move out of sight: nothing in USA's log, so no 'logged' event; USA
        # sees G-5 now where it went, so its page changed.
        invoke(game, "move", "G-5", "40,22")
        changed = next(events)
        assert changed["event"] == "changed" and "id" not in changed
        assert client.get(server.link("USA") + "panel").text.count("40,22") == 1


def test_fifty_pages_at_once_and_streams_that_hang_up(live: tuple[Server, Path]) -> None:
    """50 phones load a side's page and its state at once (each request on a connection of
    its own), then open its stream and hang up on it: p95 of a request under 0.5 s, and
    nothing left open."""
    server, _ = live
    link = server.link("Germany")
    fds = Path(f"/proc/{server.process.pid}/fd")

    def open_fds() -> int:
        return len(list(fds.iterdir())) if fds.is_dir() else 0

    phones = httpx.Client(
        timeout=10,
        headers={"accept-encoding": "gzip"},
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=0),
    )
    assert phones.get(link + "state.json").status_code == 200  # the server is up and ready
    before = open_fds()
    together = threading.Barrier(50)

    def one(_: int) -> list[float]:
        together.wait()
        took = []
        for rest in ("", "state.json"):
            start = time.monotonic()
            assert phones.get(link + rest).status_code == 200
            took.append(time.monotonic() - start)
        with phones.stream("GET", link + "events") as stream:
            next(stream.iter_lines())  # the stream is open: hang up mid-stream
        return took

    try:
        with ThreadPoolExecutor(max_workers=50) as pool:
            times = sorted(t for took in pool.map(one, range(50)) for t in took)
    finally:
        phones.close()
    p95 = times[int(0.95 * len(times)) - 1]
    print(f"p95 {p95:.3f} s, slowest {times[-1]:.3f} s for a request (50 phones at once)")
    assert p95 < 0.5, f"p95 {p95:.3f} s for a request (50 phones at once)"
    if before:
        deadline = time.monotonic() + 5
        while open_fds() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        left = sorted(os.readlink(f) for f in fds.iterdir())
        assert open_fds() <= before, f"left open after the clients hung up: {left}"


# --- a real browser ---------------------------------------------------------------------------


def _browser_missing() -> str | None:
    if not CHROMIUM.exists():
        return "no Chromium at /usr/bin/chromium ('.ci/run' installs Debian's chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]')"
    return None


@pytest.mark.skipif(_browser_missing() is not None, reason=str(_browser_missing()))
def test_a_browser_follows_a_sides_page_without_reloading(live: tuple[Server, Path]) -> None:
    # Waits go through locators, never a script string: the page's policy forbids eval,
    # and the test runs with the policy on.
    from playwright.sync_api import expect, sync_playwright

    server, game = live
    errors: list[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.link("USA"))
            expect(page.locator("#live")).to_have_text("live")
            assert page.locator("#map").evaluate("map => map.naturalWidth") > 300
            assert page.locator("section.own tr", has_text="US-2").inner_text().split() == [
                "US-2", "infantry", "11,5", "ok", "rifle",
            ]  # fmt: skip
            page.locator("body").evaluate("body => { window.notReloaded = true; }")
            old_map = page.locator("#panel").get_attribute("data-map")
            invoke(game, "move", "US-2", "11,8")
            expect(page.locator("section.own tr", has_text="US-2")).to_contain_text("11,8")
            assert page.locator("body").evaluate("body => window.notReloaded") is True
            assert page.locator("#panel").get_attribute("data-map") != old_map
            expect(page.locator("#map")).to_have_attribute("src", re.compile("^blob:"))
            expect(page.locator("ol.log li").first).to_contain_text("move stand=US-2 to=11,8")
            if os.environ.get("TABLETOP_SCREENSHOT"):
                page.screenshot(path=os.environ["TABLETOP_SCREENSHOT"], full_page=True)
        finally:
            browser.close()
    assert errors == []


def test_ctrl_c_ends_the_server_and_its_streams(live: tuple[Server, Path]) -> None:
    """Last in the file: it stops the module's server (each test worker has its own)."""
    server, game = live
    before = game.read_bytes()
    ended = threading.Event()
    opened = threading.Event()

    def follow() -> None:
        with (
            httpx.Client(timeout=10) as client,
            client.stream("GET", server.link("USA") + "events") as stream,
        ):
            for line in stream.iter_lines():
                opened.set()
                assert line is not None
        ended.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    assert opened.wait(5)
    code, out, err = server.stop()
    assert (code, out, err) == (0, "", "")
    assert ended.wait(5)  # the stream ended as a stream should, not cut off
    assert game.read_bytes() == before  # read-only: the game file as it was, byte for byte
