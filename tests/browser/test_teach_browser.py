"""Teaching the camera a table's dice on the play page, in headless Chromium: a corrected die
kept, the face-by-face flow with its progress in words, forgetting, and a watching device."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from helpers.browser import Server, Tab

from browser.test_camera_browser import (  # noqa: F401
    camera_server,
    get,
    open_play_page,
    post,
    shown_proposal,
    wait_gone,
)

pytestmark = pytest.mark.browser


def taught(server: Server, crops: int, timeout: float = 15.0) -> Any:
    """The teach stats once they hold ``crops`` crops."""
    deadline = time.monotonic() + timeout
    while True:
        st = get(f"{server.url}/api/camera/teach")
        if st["crops"] == crops or time.monotonic() > deadline:
            return st
        time.sleep(0.1)


def test_a_corrected_die_is_kept_and_the_dice_taught_face_by_face(
    camera_server: tuple[Server, Any],  # noqa: F811
    open_tab: Callable[..., Tab],
) -> None:
    server, _ = camera_server
    game, tab = open_play_page(server, open_tab)
    page = tab.page
    page.on("dialog", lambda d: d.accept())
    page.locator("#cam-proposal").wait_for(state="visible", timeout=15_000)

    # the player corrects the 6 to a 1 and removes the 5: both dice are kept with what they said
    # (in one task of the page, so the camera's next proposal cannot slip in between)
    page.evaluate(
        """() => {
            const dice = () => document.querySelectorAll('#cam-dice .cam-die');
            dice()[5].click();
            dice()[4].dispatchEvent(new MouseEvent('contextmenu', {bubbles: true}));
            document.querySelector('#cam-add').click();
        }"""
    )
    used = shown_proposal(page)
    state = page.evaluate(
        "() => [window.scorekeeperCamera.dice, document.querySelector('#cam-why').textContent]"
    )
    assert state == [[1, 2, 3, 4, 1, 1], ""], state
    page.locator("#cam-use").click()
    wait_gone(page, used)
    st = taught(server, 2)
    assert st["crops"] == 2 and st["faces"]["1"] == 1 and st["not_dice"] == 1

    # the teach flow: open it, read the dice as 1s, skip to the end
    teach = page.locator("#cam-teach")
    teach.wait_for(state="visible")
    teach.locator("summary").click()
    page.wait_for_function(
        "() => document.querySelector('#teach-summary').textContent.startsWith('Taught: 2 dice')"
    )
    assert "as another face" in page.locator("#teach-summary").inner_text()  # the default: marks
    page.locator("#teach-start").click()
    progress = page.locator("#teach-progress")
    assert progress.inner_text().startswith("Step 1 of 6: lay all your dice")
    assert page.locator("#teach-read").inner_text() == "Read them as 1s"
    page.locator("#teach-read").click()
    page.wait_for_function(
        "() => document.querySelector('#teach-progress').textContent.startsWith('Step 2 of 6')"
    )
    assert page.locator("#teach-result").inner_text() == "Kept 6 dice as 1s. Now show them as 2s."
    assert "Done: 6 dice as 1s." in progress.inner_text()
    assert taught(server, 8)["faces"]["1"] == 7
    for width, height in ((360, 740), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        teach.scroll_into_view_if_needed()
        tab.shot(f"camera-teach-{width}x{height}")
        over = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert over <= 0, f"the page is {over} px wider than {width} px"
    for _ in range(5):
        page.locator("#teach-skip").click()
    page.wait_for_function("() => document.querySelector('#teach-steps').hidden")
    assert page.locator("#teach-result").inner_text() == "Taught 6 dice as 1s."

    # a watching device sees the counts but cannot teach or forget
    watcher = open_tab(768, 1024)
    watcher.page.goto(f"{server.url}/play/{game['id']}")
    w = watcher.page.locator("#cam-teach")
    w.wait_for(state="visible", timeout=10_000)
    w.locator("summary").click()
    watcher.page.wait_for_function(
        "() => document.querySelector('#teach-summary').textContent.startsWith('Taught: 8 dice')"
    )
    assert watcher.page.locator("#teach-start").is_disabled()
    assert watcher.page.locator("#teach-clear").is_disabled()
    assert "only watches" in watcher.page.locator("#teach-why").inner_text()

    # forgetting them all, from the controlling tablet
    page.locator("#teach-clear").click()
    page.wait_for_function(
        "() => document.querySelector('#teach-result').textContent === 'Forgot 8 taught dice.'"
    )
    assert page.locator("#teach-summary").inner_text() == "Nothing taught yet."
    assert taught(server, 0)["crops"] == 0
    assert tab.errors == [] and watcher.errors == []
