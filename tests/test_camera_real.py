"""The demo camera with the real ONNX reader on ``sample_images/``: every scene settles into a
proposal of its true values, and one is recorded in a game through the API."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from scorekeeper.camera.service import CameraService, default_reader_factory
from scorekeeper.camera.sources import DEFAULT_DEMO_DIR, IMAGE_SUFFIXES, DemoSource, load_truth
from scorekeeper.vision import default_model_path
from scorekeeper.web import create_app


def _played_truth() -> dict[str, list[int]]:
    """The true dice of the scenes the demo plays (the images directly in sample_images/)."""
    if not DEFAULT_DEMO_DIR.is_dir():
        return {}
    truth = load_truth(DEFAULT_DEMO_DIR)
    played = {p.name for p in DEFAULT_DEMO_DIR.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
    return {name: values for name, values in truth.items() if name in played}


TRUTH = _played_truth()
pytestmark = pytest.mark.skipif(
    not default_model_path().is_file() or not TRUTH,
    reason="needs models/dice.onnx and sample_images/truth.json",
)
TUMBLE, STILL = 6, 12


def test_every_demo_scene_settles_into_its_true_values() -> None:
    src = DemoSource(DEFAULT_DEMO_DIR, fps=0, tumble_frames=TUMBLE, still_frames=STILL)
    src.open()
    svc = CameraService("none", reader_factory=default_reader_factory(threads=1))
    proposals: dict[str, list[list[int]]] = {}
    seen: set[str] = set()
    for i in range(len(src.scenes) * (TUMBLE + STILL)):
        img = src.read()
        assert img is not None
        r = svc.process(img, i + 1, src.info, captured=i / 15)
        if r.proposal is not None and r.proposal.id not in seen:
            seen.add(r.proposal.id)
            assert src.info["phase"] == "still"  # never while tumbling
            proposals.setdefault(src.info["scene"], []).append(list(r.proposal.dice))
    expected = {name: [values] for name, values in TRUTH.items() if values}
    assert proposals == expected


@pytest.fixture
def demo_app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "games.sqlite3"),
            "CACHE_DIR": str(tmp_path / "cache"),
            "CAMERA": "demo",
            # seed 0: the built-in demo throws the same dice every run
            "CAMERA_DEMO_OPTIONS": {
                "fps": 15,
                "tumble_frames": TUMBLE,
                "still_frames": STILL,
                "seed": 0,
            },
        }
    )
    yield app
    if "camera" in app.extensions:
        app.extensions["camera"].stop()


def test_demo_camera_throw_recorded_through_the_api(demo_app: Flask) -> None:
    client = demo_app.test_client()
    n = max(len(v) for v in TRUTH.values())
    game = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()
    gid, auth = game["id"], {"Authorization": f"Bearer {game['control_token']}"}
    version = game["version"]

    def act(body: dict[str, Any]) -> Any:
        nonlocal version
        url = f"/api/games/{gid}/actions"
        resp = client.post(url, json={"version": version, **body}, headers=auth)
        assert resp.status_code == 200, resp.get_json()
        version = resp.get_json()["version"]
        return resp.get_json()["state"]

    if n < 6:  # bring the dice left down to n: a manual throw, keep its 1s
        fillers = [2, 3, 4, 6, 6, 3][:n]
        act({"type": "throw", "dice": [1] * (6 - n) + fillers, "source": "manual"})
        act({"type": "keep", "dice": [1] * (6 - n)})
    deadline = time.monotonic() + 60
    proposal = None
    while time.monotonic() < deadline:
        body = client.get(f"/api/camera/latest?dice_left={n}").get_json()
        p = body["proposal"]
        if p is not None and p["count"] == n:
            proposal = p
            break
        time.sleep(0.05)
    assert proposal is not None, client.get("/api/camera").get_json()
    assert proposal["message"] == f"I see {n} {'die' if n == 1 else 'dice'}"
    assert proposal["dice"] in [v for v in TRUTH.values() if len(v) == n]

    state = act({"type": "throw", "dice": proposal["dice"], "source": "camera"})
    assert state["turn"]["source"] == "camera"
    out = client.post(
        f"/api/camera/proposals/{proposal['id']}",
        json={"recorded": proposal["dice"], "game": gid},
        headers=auth,
    ).get_json()
    assert out["exact"] is True


def test_the_builtin_demo_throws_the_dice_left_for_a_whole_turn(demo_app: Flask) -> None:
    """The play page's ask (``dice_left`` and a new ``throw`` key whenever the game waits for a
    throw): the built-in demo throws that many dice, the reader reads them, and a turn is
    played from the camera's proposals alone."""
    client = demo_app.test_client()
    game = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()
    gid, auth = game["id"], {"Authorization": f"Bearer {game['control_token']}"}
    state, version = game["state"], game["version"]
    seen: set[str] = set()
    throws = 0
    while state["phase"] == "throw" and state["turn"]["player"] == 0 and throws < 6:
        left = state["turn"]["dice_left"]
        deadline = time.monotonic() + 30
        proposal = None
        while time.monotonic() < deadline:
            url = f"/api/camera/latest?dice_left={left}&throw={gid}:{version}"
            p = client.get(url).get_json()["proposal"]
            if p is not None and p["id"] not in seen:
                proposal = p
                break
            time.sleep(0.05)
        assert proposal is not None, client.get("/api/camera").get_json()
        seen.add(proposal["id"])
        truth = demo_app.extensions["camera"].latest().info["truth"]
        assert proposal["count"] == left and proposal["dice"] == truth
        throws += 1
        thrown = {"type": "throw", "dice": proposal["dice"], "source": "camera"}
        resp = client.post(
            f"/api/games/{gid}/actions", json={"version": version, **thrown}, headers=auth
        ).get_json()
        state, version = resp["state"], resp["version"]
        if state["phase"] != "keep":
            break  # a farkle: the turn is over
        best = state["turn"]["keeps"][0]
        action = {"type": "keep", "dice": best["keep"]}
        resp = client.post(
            f"/api/games/{gid}/actions", json={"version": version, **action}, headers=auth
        ).get_json()
        state, version = resp["state"], resp["version"]
    assert throws >= 2  # the game asked again with fewer dice, and the demo threw those
