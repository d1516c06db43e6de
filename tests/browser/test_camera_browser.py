"""The play page with a demo camera in headless Chromium: overlay, proposal, correct, confirm."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import pytest
from helpers.browser import Server, Tab, record_figure, serve_in_thread
from helpers.camera import PipReader, scene

from scorekeeper.camera.log import CameraLog, log_path_for

pytestmark = pytest.mark.browser

SIX = [(1, 60, 60), (2, 200, 80), (3, 360, 60), (4, 80, 300), (5, 260, 320), (6, 430, 300)]
LEFTOVER = [(1, 60, 60), (2, 200, 80), (3, 360, 60), (4, 80, 300), (6, 260, 320), (6, 430, 300)]


@pytest.fixture(params=["demo"])
def camera_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Server, Any]]:
    """The app on waitress with a demo camera playing one six-dice scene, read by PipReader
    (``demo-unsure``: unsure of the 4; ``demo-blown``: a quarter of the picture clipped to white;
    ``tablet``: taking frames from the browser instead; ``builtin``: the built-in demo, which
    throws the dice the game asks for, read by the real model)."""
    from waitress import create_server  # type: ignore[import-untyped,unused-ignore]

    from scorekeeper.web import create_app

    demo = tmp_path / "demo"
    demo.mkdir()
    # the folder demo replays its pictures in turn; dice that land again where they lay count as
    # never thrown (not offered to a page that came later), so its throws land in two places
    pictures = {
        "six-a.png": scene(SIX),
        "six-b.png": scene([(v, x + 60, y + 40) for v, x, y in SIX]),
    }
    if request.param == "demo-blown":  # a quarter of the picture clipped to white, off the dice
        for picture in pictures.values():
            picture[:56] = 255
            picture[:, 540:] = 255
    if request.param == "demo-leftover":  # a throw, then the same throw with its 1 taken away
        cv2.imwrite(str(demo / "a.png"), scene(LEFTOVER))
        cv2.imwrite(str(demo / "b.png"), scene(LEFTOVER[1:]))
    elif request.param == "demo-nudged":  # ... and the dice left lying pushed aside, unthrown
        cv2.imwrite(str(demo / "a.png"), scene(LEFTOVER))
        cv2.imwrite(str(demo / "b.png"), scene([(v, x + 70, y + 60) for v, x, y in LEFTOVER[1:]]))
    else:
        for name, picture in pictures.items():
            cv2.imwrite(str(demo / name), picture)
        (demo / "truth.json").write_text(
            json.dumps({name: [1, 2, 3, 4, 5, 6] for name in pictures})
        )
    app = create_app(
        {
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "CACHE_DIR": str(tmp_path / "cache"),
            "PUBLIC_URL": None,
            "CAMERA": (
                "auto"
                if request.param == "auto-none"
                else f"demo:{demo}"
                if request.param.startswith("demo")
                else "demo"
                if request.param == "builtin"
                else request.param
            ),
            # "demo-unsure": the reader is unsure of the 4
            "CAMERA_READER_FACTORY": (
                (lambda: PipReader(unsure_values=(4,)))
                if request.param == "demo-unsure"
                else None
                if request.param == "builtin"
                else PipReader
            ),
            # "auto-none": no webcam on the machine; the demo (when asked) plays the folder
            "CAMERA_SOURCE_FACTORY": (
                partial(no_webcam_or_demo, demo) if request.param == "auto-none" else None
            ),
            # seed 0: the built-in demo throws the same dice every run
            "CAMERA_DEMO_OPTIONS": {"fps": 15, "tumble_frames": 6, "still_frames": 40, "seed": 0},
        }
    )
    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    port = server.socket.getsockname()[1]  # type: ignore[union-attr]
    thread, closing = serve_in_thread(server)
    try:
        yield Server(f"http://127.0.0.1:{port}", tmp_path / "games.sqlite3"), app
    finally:
        closing.set()
        if "camera" in app.extensions:
            app.extensions["camera"].stop()
        # Streams still open keep their worker threads; once the server is closed their last
        # writes would wake a closed trigger and log errors, so make that wake-up a no-op.
        server.pull_trigger = lambda: None  # type: ignore[method-assign]
        server.close()
        thread.join(timeout=1)  # waitress keeps its trigger in the map; the thread is a daemon


def no_webcam_or_demo(folder: Path, spec: Any) -> Any:
    """A machine without a webcam: opening one fails; the demo plays ``folder``."""
    from scorekeeper.camera import DemoSource

    class Missing(DemoSource):
        def open(self) -> None:
            raise OSError("cannot open webcam 0")

    if spec.kind == "webcam":
        return Missing(folder)
    return DemoSource(folder, fps=15, tumble_frames=6, still_frames=40)


def post(url: str, body: Any, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def open_play_page(
    server: Server, open_tab: Callable[..., Tab], size: tuple[int, int] = (768, 1024)
) -> tuple[Any, Tab]:
    """A new two-player game and its play page, with the control token, in a tab of ``size``
    (a tablet's unless told)."""
    game = post(f"{server.url}/api/games", {"players": ["Ann", "Bob"]})
    tab = open_tab(*size)
    tab.page.goto(f"{server.url}/play/{game['id']}#t={game['control_token']}")
    return game, tab


def shown_proposal(page: Any) -> str:
    """The id of the camera proposal the page shows."""
    pid = page.evaluate("() => (window.scorekeeperCamera.proposal || {}).id")
    assert pid, "no proposal is shown"
    return str(pid)


def shown_values(page: Any) -> list[str]:
    """The values of the proposal's dice buttons, as their labels say them."""
    labels = page.locator("#cam-dice .cam-die").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    return [label.split(": ")[1].split(",")[0] for label in labels]


def wait_shown(page: Any, pid: str) -> None:
    """Wait until the page shows proposal ``pid``."""
    page.wait_for_function(
        "pid => (window.scorekeeperCamera.proposal || {}).id === pid", arg=pid, timeout=5_000
    )


def wait_gone(page: Any, pid: str) -> None:
    """Wait until proposal ``pid`` is done and no longer shown: the panel is hidden, or shows the
    demo camera's next proposal (its dice tumble and settle every few seconds)."""
    page.wait_for_function(
        """pid => { const c = window.scorekeeperCamera;
            return c.done.has(pid) && (!c.proposal || c.proposal.id !== pid)
                && document.querySelector('#cam-proposal').hidden === !c.proposal; }""",
        arg=pid,
        timeout=10_000,
    )


def open_with_proposal(server: Server, open_tab: Callable[..., Tab]) -> tuple[Any, Tab]:
    """The play page of a new game (:func:`open_play_page`) once the camera's proposal shows."""
    game, tab = open_play_page(server, open_tab)
    tab.page.locator("#cam-proposal").wait_for(state="visible", timeout=15_000)
    return game, tab


def test_play_page_camera_proposal_corrected_and_recorded(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    game, tab = open_play_page(server, open_tab)
    page = tab.page

    panel = page.locator("#camera-panel")
    panel.wait_for(state="visible")
    page.wait_for_function(
        "() => { const i = document.querySelector('#camera-panel .cam-img');"
        " return i && i.naturalWidth > 0; }",
        timeout=10_000,
    )  # the MJPEG live view with the overlay is showing
    page.locator("#cam-proposal").wait_for(state="visible", timeout=15_000)
    assert "I see 6 dice" in page.locator("#cam-msg").inner_text()
    assert shown_values(page) == ["1", "2", "3", "4", "5", "6"]
    tab.shot("camera-proposal")

    # a slow tap outlives the page's half-second refresh: the button it pressed stays in place,
    # so the release lands on it and no die is lost to a stray hold timer
    kept = page.evaluate(
        """async () => {
            const b = document.querySelector('#cam-dice .cam-die');
            b.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
            await new Promise(r => setTimeout(r, 600));
            const still = b.isConnected;
            b.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));
            await new Promise(r => setTimeout(r, 700));
            return [still, document.querySelectorAll('#cam-dice .cam-die').length];
        }"""
    )
    assert kept == [True, 6]

    # correct the last die (6 -> 1) with one tap, then "Use this throw"
    page.locator("#cam-dice .cam-die").nth(5).click()
    assert "corrected" in page.locator("#cam-msg").inner_text()
    used = shown_proposal(page)
    page.locator("#cam-use").click()
    wait_gone(page, used)

    state = get(f"{server.url}/api/games/{game['id']}")["state"]
    assert sorted(state["turn"]["throw"]) == [1, 1, 2, 3, 4, 5]
    assert state["turn"]["source"] == "camera"
    page.wait_for_function(
        "() => document.querySelector('#turn-sub').textContent.includes('camera')"
    )
    status = page.evaluate("() => fetch('/api/camera').then(r => r.json())")
    assert status["status"] == "ok"
    record_figure("camera_live_view_fps_browser", status["fps"])
    log = CameraLog(log_path_for(server.db))
    deadline = time.monotonic() + 5
    while log.stats(include_demo=True)["recorded"] < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    stats = log.stats(include_demo=True)  # the proposal and the corrected throw are logged
    assert stats["recorded"] == 1 and stats["exact"] == 0 and stats["count_wrong"] == 0
    log.close()
    tab.shot("camera-recorded")
    assert tab.errors == []


def test_a_play_page_opened_after_the_dice_settled_is_offered_the_next_throw(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    wait_new_server_proposal(server, "")  # the camera has settled a throw before the page opens
    _, tab = open_with_proposal(server, open_tab)
    assert shown_values(tab.page) == ["1", "2", "3", "4", "5", "6"]


def test_a_throw_typed_instead_is_logged_for_the_proposal(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    game, tab = open_with_proposal(server, open_tab)
    page = tab.page
    # the throw is entered elsewhere (the dice pad, another tablet): the proposal goes away
    shown = shown_proposal(page)
    post(
        f"{server.url}/api/games/{game['id']}/actions",
        {"version": game["version"], "type": "throw", "dice": [1, 2, 3, 4, 5, 5]},
        game["control_token"],
    )
    wait_gone(page, shown)
    log = CameraLog(log_path_for(server.db))
    deadline = time.monotonic() + 5
    while log.stats(include_demo=True)["recorded"] < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    rows = log.rows()
    log.close()
    decided = [(r["id"], r["dice"], r["recorded"]) for r in rows if r["outcome"] is not None]
    assert decided == [(shown, [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 5])]  # later ones are undecided


def wait_new_server_proposal(server: Server, after: str) -> str:
    """Wait until the camera proposes a throw other than ``after`` (the demo dice tumble and
    settle again every few seconds); its id."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        p = get(f"{server.url}/api/camera/latest")["proposal"]
        if p and p["id"] != after:
            return str(p["id"])
        time.sleep(0.1)
    raise AssertionError(f"the camera proposed nothing after {after}")


def test_a_corrected_proposal_stays_when_the_camera_settles_again(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    _, tab = open_with_proposal(server, open_tab)
    page = tab.page
    first = shown_proposal(page)
    # untouched, the proposal follows the camera: the next settled reading replaces it
    wait_shown(page, wait_new_server_proposal(server, first))
    # once the player has tapped a die, the dice they corrected stay
    page.locator("#cam-dice .cam-die").nth(5).click()
    assert "corrected" in page.locator("#cam-msg").inner_text()
    corrected = shown_proposal(page)
    newer = wait_new_server_proposal(server, corrected)
    time.sleep(1.0)  # a few of the page's polls see the new proposal
    assert shown_proposal(page) == corrected != newer
    assert "corrected" in page.locator("#cam-msg").inner_text()
    hint = page.locator("#cam-newer")  # says a newer reading waits, and how to get it
    assert hint.is_visible() and "Dismiss this one to see it" in hint.inner_text()
    tab.shot("camera-corrected-newer")
    assert shown_values(page) == ["1", "2", "3", "4", "5", "1"]
    # dismissed, the panel takes the camera's next reading again
    page.locator("#cam-dismiss").click()
    wait_shown(page, wait_new_server_proposal(server, newer))
    assert page.locator("#cam-newer").is_hidden()
    assert tab.errors == []


def test_a_play_page_for_a_missing_game_shows_no_camera_and_follows_nothing(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    """A mistyped game link says so; the camera panel, its live view and the table tools stay
    hidden, and nothing keeps asking for that game's stream."""
    server, _ = camera_server
    tab = open_tab()
    page = tab.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{server.url}/play/nosuchgame")
    page.wait_for_function(
        "() => document.querySelector('#loading').textContent.includes('There is no game')"
    )
    page.wait_for_timeout(3000)  # the stream's first retries would have come by now
    assert page.locator("#camera-panel").is_hidden()
    assert page.locator("#table-tools").is_hidden()
    assert [url for url in asked if "/stream" in url] == []
    # the game's own 404s are logged as failed loads; no script broke on the missing game
    assert [e for e in tab.errors if e.startswith("page error")] == []


def test_the_camera_panel_goes_when_the_game_is_over(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    game, tab = open_with_proposal(server, open_tab)
    page = tab.page
    url = f"{server.url}/api/games/{game['id']}/actions"
    ended = post(url, {"version": game["version"], "type": "end"}, game["control_token"])
    page.locator("#camera-panel").wait_for(state="hidden", timeout=5_000)
    # no live view left running on the tablet
    assert page.evaluate("() => document.querySelector('#camera-panel .cam-img').src") == ""
    post(url, {"version": ended["version"], "type": "undo"}, game["control_token"])
    page.locator("#camera-panel").wait_for(state="visible", timeout=5_000)
    page.wait_for_function(
        "() => { const i = document.querySelector('#camera-panel .cam-img');"
        " return i.src.includes('/api/camera/stream') && i.naturalWidth > 0; }",
        timeout=10_000,
    )
    assert tab.errors == []


@pytest.mark.parametrize("camera_server", ["demo-leftover"], indirect=True)
@pytest.mark.parametrize("size", [(360, 740), (768, 1024), (1920, 1080)])
def test_the_dice_left_lying_from_the_last_throw_are_not_offered(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    """After a keep, a webcam sees the dice still lying there once the kept ones are picked up:
    they lie where they lay in the recorded throw, so the panel offers nothing for them; dice
    that came to rest anew are offered (here six, where five are left: refused)."""
    server, app = camera_server
    game, tab = open_play_page(server, open_tab, size)
    page = tab.page
    page.wait_for_function(
        "() => document.querySelectorAll('#cam-dice .cam-die').length === 6", timeout=15_000
    )
    assert page.locator("#cam-leftover").is_hidden()
    used = shown_proposal(page)
    page.locator("#cam-use").click()
    wait_gone(page, used)
    state = get(f"{server.url}/api/games/{game['id']}")
    post(
        f"{server.url}/api/games/{game['id']}/actions",
        {"version": state["version"], "type": "keep", "dice": [1]},
        game["control_token"],
    )
    # the demo's next scene: the same dice without the 1, as a webcam would see them lying
    svc = app.extensions["camera"]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        r = svc.latest()
        if r is not None and r.proposal is not None and r.proposal.dice == (2, 3, 4, 6, 6):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the leftover dice were never read")
    page.wait_for_timeout(1000)  # a few polls of the page
    assert page.locator("#cam-proposal").is_hidden()
    waiting = page.locator("#cam-waiting")
    assert waiting.is_visible() and "were in the last throw" in waiting.inner_text()
    tab.shot(f"camera-leftover-not-offered-{size[0]}x{size[1]}")
    # the demo's first scene again: six dice where five are left, the kept 1 back in view
    page.wait_for_function(
        "() => !document.querySelector('#cam-proposal').hidden"
        " && document.querySelectorAll('#cam-dice .cam-die').length === 6",
        timeout=15_000,
    )
    assert page.is_disabled("#cam-use")
    why = page.locator("#cam-why").inner_text()
    assert "needs exactly 5 dice" in why and "Mark throwing area to leave them out" in why
    assert tab.errors == []


@pytest.mark.parametrize("camera_server", ["demo-nudged"], indirect=True)
@pytest.mark.parametrize("size", [(360, 740), (1920, 1080)])
def test_nudged_leftover_dice_are_offered_only_behind_a_plain_warning(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    """Dice left lying but pushed aside as the kept ones were picked up are read as a new
    scene: the panel says they are the dice left lying, and its button is no longer the
    primary one and says "Use anyway"."""
    server, _app = camera_server
    game, tab = open_play_page(server, open_tab, size)
    page = tab.page
    page.wait_for_function(
        "() => document.querySelectorAll('#cam-dice .cam-die').length === 6", timeout=15_000
    )
    used = shown_proposal(page)
    page.locator("#cam-use").click()
    wait_gone(page, used)
    state = get(f"{server.url}/api/games/{game['id']}")
    post(
        f"{server.url}/api/games/{game['id']}/actions",
        {"version": state["version"], "type": "keep", "dice": [1]},
        game["control_token"],
    )
    page.wait_for_selector("#cam-leftover:not([hidden])", timeout=15_000)
    assert "left lying from the last throw" in page.inner_text("#cam-leftover")
    use = page.locator("#cam-use")
    assert use.inner_text() == "Use anyway (a new throw of the same dice)"
    assert "primary" not in (use.get_attribute("class") or "")
    assert page.evaluate("() => document.documentElement.scrollWidth - innerWidth") <= 0
    page.locator("#cam-leftover").scroll_into_view_if_needed()
    tab.shot(f"camera-nudged-leftover-{size[0]}x{size[1]}", full_page=False)
    assert tab.errors == []


@pytest.mark.parametrize("camera_server", ["builtin"], indirect=True)
def test_the_builtin_demo_throws_the_dice_the_game_has_left(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, app = camera_server
    game, tab = open_with_proposal(server, open_tab)
    page = tab.page
    left = 6
    for throw in range(2):
        # the proposal the page shows is of the dice lying there: as many as the game has left
        page.wait_for_function(
            "n => document.querySelectorAll('#cam-dice .cam-die').length === n",
            arg=left,
            timeout=15_000,
        )
        truth = app.extensions["camera"].latest().info["truth"]
        assert [int(v) for v in shown_values(page)] == truth
        assert f"I see {left} dice" in page.locator("#cam-msg").inner_text()
        if throw == 0:
            tab.shot("camera-builtin-demo")
        used = shown_proposal(page)
        page.locator("#cam-use").click()
        wait_gone(page, used)
        state = get(f"{server.url}/api/games/{game['id']}")["state"]
        assert sorted(state["turn"]["throw"]) == truth and state["turn"]["source"] == "camera"
        if state["phase"] != "keep":
            break  # a farkle ends the turn
        # keep the advised dice and throw the rest: the demo throws exactly those
        page.locator("#act-throw").click()
        page.wait_for_function(
            "n => window.scorekeeperClient.game.state.turn.dice_left !== n", arg=left
        )
        left = page.evaluate("() => window.scorekeeperClient.game.state.turn.dice_left")
    assert tab.errors == []


@pytest.mark.parametrize("camera_server", ["demo-unsure"], indirect=True)
def test_camera_marks_the_die_it_is_unsure_of(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    _, tab = open_with_proposal(server, open_tab)
    page = tab.page
    marked = page.locator("#cam-dice .cam-die.unsure")
    assert marked.count() == 1
    assert (marked.get_attribute("aria-label") or "").startswith("die 4: 4, the camera is unsure")
    assert "Check the die marked ?: the camera is unsure." in page.locator("#cam-msg").inner_text()
    tab.shot("camera-unsure")
    # the player corrects a die: the proposal is theirs now, the mark goes
    page.locator("#cam-dice .cam-die").nth(3).click()
    page.wait_for_function("() => !document.querySelector('#cam-dice .cam-die.unsure')")
    assert "corrected" in page.locator("#cam-msg").inner_text()
    assert "unsure" not in page.locator("#cam-msg").inner_text()
    assert tab.errors == []


@pytest.mark.parametrize("camera_server", ["demo-blown"], indirect=True)
def test_camera_advises_turning_a_blown_out_exposure_down(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab]
) -> None:
    server, _ = camera_server
    _, tab = open_with_proposal(server, open_tab)
    page = tab.page
    light = page.locator("#cam-light")
    light.wait_for(state="visible", timeout=10_000)
    assert "% of the picture is blown out to white" in light.inner_text()
    assert light.get_attribute("role") == "status"
    assert page.locator("#cam-dice .cam-die").count() == 6  # the dice are read all the same
    tab.shot("camera-blown-out")
    # a throwing area left of the blown-out strip: the advice goes
    post(f"{server.url}/api/camera/area", {"x0": 0, "y0": 0.15, "x1": 0.8, "y1": 1})
    light.wait_for(state="hidden", timeout=10_000)
    assert tab.errors == []


@pytest.mark.parametrize("camera_server", ["tablet"], indirect=True)
def test_tablet_camera_posts_frames_from_the_browser(
    camera_server: tuple[Server, Any], chromium: Any
) -> None:
    """Chromium's fake camera stands in for the tablet's: frames go up, boxes come back."""
    from helpers.browser import CHROMIUM, LAUNCH_ARGS

    server, _ = camera_server
    game = post(f"{server.url}/api/games", {"players": ["Ann", "Bob"]})
    fake_camera = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
    browser = chromium.browser_type.launch(
        executable_path=str(CHROMIUM), args=LAUNCH_ARGS + fake_camera
    )
    try:
        page = browser.new_page(viewport={"width": 768, "height": 1024})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{server.url}/play/{game['id']}#t={game['control_token']}")
        page.locator("#cam-tablet").wait_for(state="visible", timeout=10_000)
        assert "waiting for the tablet" in page.locator(".cam-banner").inner_text()
        page.locator("#cam-tablet").click()
        status: dict[str, Any] = {}
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            status = page.evaluate("() => fetch('/api/camera').then(r => r.json())")
            if status["status"] == "ok" and status["frame_id"] >= 3:
                break
            time.sleep(0.2)
        assert status["status"] == "ok" and status["frame_id"] >= 3, status
        assert page.locator(".cam-video").is_visible()
        assert page.locator(".cam-boxes").is_visible()
        assert errors == []
    finally:
        browser.close()


@pytest.mark.parametrize("camera_server", ["auto-none"], indirect=True)
@pytest.mark.parametrize("size", [(360, 740), (768, 1024), (1920, 1080)])
def test_no_camera_found_offers_the_demo_only_when_asked(
    camera_server: tuple[Server, Any], open_tab: Callable[..., Tab], size: tuple[int, int]
) -> None:
    """``auto`` on a machine without a webcam: the panel says "No camera found", the pad stays,
    and the demo camera runs only once "Try the demo camera" is pressed."""
    server, app = camera_server
    game = post(f"{server.url}/api/games", {"players": ["Ann", "Bob"]})
    tab = open_tab(*size)
    page = tab.page
    page.goto(f"{server.url}/play/{game['id']}#t={game['control_token']}")
    line = page.locator("#cam-none-line")
    line.wait_for(state="visible", timeout=10_000)
    assert "No camera found." in line.inner_text()
    assert page.locator("#camera-panel .cam-status").inner_text() == "No camera found"
    assert page.locator("#cam-view").is_hidden()
    button = page.locator("#cam-demo")
    assert button.is_visible() and button.inner_text() == "Try the demo camera"
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size[0]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size[0]
    page.wait_for_timeout(1000)
    assert app.extensions["camera"].latest() is None  # no demo runs by itself
    tab.shot(f"camera-none-found-{size[0]}x{size[1]}")
    button.click()
    page.locator("#cam-none").wait_for(state="hidden")
    assert page.locator("#cam-view").is_visible()
    # the demo's dice come to rest after the page named its throw: they are offered
    page.locator("#cam-proposal").wait_for(state="visible", timeout=15_000)
    assert len(shown_values(page)) == 6
    # the panel shows how many frames a second this machine reads the dice in
    page.wait_for_function(
        "() => /reads [0-9.]+\\/s/.test(document.querySelector('#camera-panel .cam-status')"
        ".textContent)",
        timeout=10_000,
    )
    tab.shot(f"camera-demo-asked-{size[0]}x{size[1]}")
    assert [e for e in tab.errors if e.startswith("page error")] == []
