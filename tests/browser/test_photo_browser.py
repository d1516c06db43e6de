"""The play page's "Read the dice from a photo": a phone photo fills the dice pad to check."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from helpers.browser import Server, Tab
from helpers.pages import (
    PHONE,
    api,
    choose_keep,
    new_game,
    open_play_page,
    tap_throw,
    touch_targets_too_small,
)

from training.synth import render_scene

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())

pytestmark = pytest.mark.browser


def entered(tab: Tab) -> list[int]:
    """The values entered on the pad, in order (from the slots' remove buttons)."""
    labels = tab.page.eval_on_selector_all(
        "#entered button", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    return [int(label.split()[2]) for label in labels]  # "Remove the 5 (die 2)"


def phone_game(live_server: Server, open_tab: Callable[..., Tab]) -> tuple[str, Tab]:
    """A new two-player game and its play page open on a phone: the game's id and the tab."""
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard")
    tab = open_tab(*PHONE)
    open_play_page(live_server, tab, game_id, token)
    return game_id, tab


def wait_read(tab: Tab) -> str:
    """Wait until the photo has been read; the page's message."""
    page = tab.page
    page.wait_for_selector("#message:not(:empty)", timeout=20000)
    page.wait_for_selector("#photo-btn:not([disabled])")
    return str(page.inner_text("#message"))


def test_a_phone_photo_fills_the_pad_and_is_entered(
    live_server: Server, open_tab: Callable[..., Tab], tmp_path: Path
) -> None:
    game_id, tab = phone_game(live_server, open_tab)
    assert tab.page.inner_text("#photo-btn") == "Read the dice from a photo"
    assert touch_targets_too_small(tab) == []
    # a 12-megapixel phone photo of five dice
    name = "scene-05-text.jpg"
    photo = tmp_path / "IMG_0001.jpg"
    big = cv2.resize(cv2.imread(str(SAMPLES / name)), (4032, 3024), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(photo), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    tab.page.set_input_files("#photo-input", str(photo))
    message = wait_read(tab)
    values = entered(tab)
    assert sorted(values) == TRUTH[name]
    shown = " ".join(map(str, values))
    assert message.startswith(f"I see 5 dice, 6 are left to throw: {shown}")
    assert "Check them against the dice" in message and "straight above" not in message
    assert tab.page.inner_text("#pad-count") == "5 of 6 entered"
    # the player checks them, taps the sixth die in, and enters the throw
    tab.page.click("#pad button[data-face='2']")
    tab.page.click("#pad-submit")
    tab.page.wait_for_selector("#keeps-section:not([hidden])")
    game = api(live_server, f"/api/games/{game_id}")
    turn = game["state"]["turn"]
    assert turn["throw"] == sorted([*TRUTH[name], 2]) and turn["source"] == "camera"
    tab.shot("play-photo-phone")
    assert tab.errors == []


def test_a_photo_that_is_not_read_says_why_and_leaves_the_pad(
    live_server: Server, open_tab: Callable[..., Tab], tmp_path: Path
) -> None:
    _, tab = phone_game(live_server, open_tab)
    tab.page.click("#pad button[data-face='4']")
    heic = tmp_path / "IMG_0002.HEIC"
    heic.write_bytes(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + bytes(64))
    tab.page.set_input_files("#photo-input", str(heic))
    message = wait_read(tab)
    assert message.startswith("The photo: a HEIC image, which is not read here")
    assert "Most Compatible" in message and message.endswith("Tap the dice in instead.")
    assert entered(tab) == [4]
    # a photo without dice says so, and the pad keeps what was tapped
    blank = tmp_path / "table.jpg"
    cv2.imwrite(str(blank), render_scene(3, 640, 480, n_dice=0, background_style="wood")[0])
    tab.page.set_input_files("#photo-input", str(blank))
    tab.page.wait_for_selector("#message:has-text('No dice were found')", timeout=20000)
    assert entered(tab) == [4]
    # the browser logs the refused upload (400) itself; nothing else went wrong
    assert [e for e in tab.errors if "status of 400" not in e] == []


def test_dice_the_reader_is_unsure_of_are_marked_on_the_pad(
    live_server: Server, open_tab: Callable[..., Tab], tmp_path: Path
) -> None:
    _, tab = phone_game(live_server, open_tab)
    # five dice among clutter (the 1 painted out of the sample photo); the game waits for six, so
    # the sixth is what else looks most like a die, marked unsure
    scene = cv2.imread(str(SAMPLES / "hard" / "scene-08-clutter.jpg"))
    labels = json.loads((SAMPLES / "hard" / "labels.json").read_text())["scene-08-clutter.jpg"]
    x0, y0, x1, y1 = (round(v) for v in next(d["box"] for d in labels if d["value"] == 1))
    scene[y0 - 6 : y1 + 6, x0 - 6 : x1 + 6] = np.median(
        scene[y1 + 10 : y1 + 30, x0:x1].reshape(-1, 3), axis=0
    )
    photo = tmp_path / "clutter.png"
    cv2.imwrite(str(photo), scene)
    tab.page.set_input_files("#photo-input", str(photo))
    message = wait_read(tab)
    doubts = message.split(":", 1)[1].split("(")[0].count("?")
    assert doubts == 1 and "check the ones marked ?" in message
    assert message.endswith("Next time, a photo from straight above reads best.")
    assert tab.page.inner_text("#pad-count") == "6 of 6 entered"
    marked = tab.page.locator("#entered button.unsure")
    assert marked.count() == doubts
    label = marked.first.get_attribute("aria-label") or ""
    assert label.endswith("the camera is unsure: check it)")
    tab.shot("play-photo-unsure")
    # the player removes the doubtful die: its mark goes with it, the others keep theirs
    before = len(entered(tab))
    marked.first.click()
    assert len(entered(tab)) == before - 1
    assert tab.page.locator("#entered button.unsure").count() == doubts - 1
    # a die tapped in is the player's own, never marked
    tab.page.click("#pad button[data-face='3']")
    assert tab.page.locator("#entered button").last.get_attribute("class") == ""
    assert tab.errors == []


def test_without_a_camera_the_page_opens_no_camera_view(
    live_server: Server, open_tab: Callable[..., Tab]
) -> None:
    game_id, token = new_game(live_server, ["Ann", "Bob"], "standard")
    tab = open_tab(*PHONE)
    asked: list[str] = []
    tab.page.on("request", lambda r: asked.append(r.url))

    def game_late(route: Any) -> None:  # the camera's status first: the race a page can lose
        time.sleep(1.0)
        route.continue_()

    tab.page.route(f"**/api/games/{game_id}", game_late)
    open_play_page(live_server, tab, game_id, token)
    tab.page.wait_for_selector(".cam-status:has-text('off: tap the dice in')")
    tab.page.wait_for_selector("#pad-count:has-text('0 of 6 entered')")  # the game came after
    assert any(u.endswith("/api/camera") for u in asked)  # the camera's status was asked
    # the view is hidden, so no live stream holds one of the server's few camera views
    assert not any("/api/camera/stream" in u for u in asked)
    assert tab.errors == []


def test_a_photo_of_more_dice_than_are_left_names_the_doubtful_ones(
    live_server: Server, open_tab: Callable[..., Tab], tmp_path: Path
) -> None:
    _, tab = phone_game(live_server, open_tab)
    # Ann throws and keeps her 1; five dice are left, and she photographs all six again
    tap_throw(tab, [1, 2, 3, 4, 6, 6])
    choose_keep(tab, [1])
    tab.page.click("#act-throw")
    tab.page.wait_for_selector("#pad-count:has-text('0 of 5 entered')")
    name = "scene-06-tiles.jpg"
    tab.page.set_input_files("#photo-input", str(SAMPLES / name))
    message = wait_read(tab)
    assert message.startswith("I see 6 dice, 5 are left to throw: ")
    shown = message.split(": ", 1)[1].split(" (")[0].split()
    assert sorted(int(v.rstrip("?")) for v in shown) == TRUTH[name]
    assert any(v.endswith("?") for v in shown) and "check the ones marked ?" in message
    assert message.endswith(
        "Take a photo of the thrown dice alone, from straight above, or tap them in."
    )
    assert tab.page.inner_text("#pad-count") == "0 of 5 entered"
    tab.shot("play-photo-count-exceeded")
    assert tab.errors == []
