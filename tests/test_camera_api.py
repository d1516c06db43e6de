"""The camera API end to end: demo frames, a settled proposal, a throw recorded from the camera."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.camera import PipReader, scene

from scorekeeper.camera.log import CameraLog, log_path_for
from scorekeeper.camera.settle import SettleConfig

SCENES = {
    "a_six.png": [
        (1, 60, 60),
        (2, 200, 80),
        (3, 360, 60),
        (4, 80, 300),
        (5, 260, 320),
        (6, 430, 300),
    ],
    "b_three.png": [(5, 100, 100), (5, 300, 200), (1, 500, 350)],
    "c_two.png": [(2, 150, 250), (6, 420, 120)],
}
TRUTH = {name: sorted(v for v, _, _ in dice) for name, dice in SCENES.items()}


@pytest.fixture
def demo_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    for name, dice in SCENES.items():
        cv2.imwrite(str(folder / name), scene(dice))
    (folder / "truth.json").write_text(json.dumps(TRUTH))
    return folder


@pytest.fixture
def camera_app(make_app: Callable[..., Flask]) -> Callable[..., Flask]:
    """``make_app`` with the pip-counting reader of the synthetic scenes."""
    return partial(make_app, CAMERA_READER_FACTORY=PipReader)


@pytest.fixture
def demo_app(camera_app: Callable[..., Flask], demo_dir: Path) -> Flask:
    return camera_app(
        CAMERA=f"demo:{demo_dir}",
        CAMERA_DEMO_OPTIONS={"fps": 60, "tumble_frames": 4, "still_frames": 14},
    )


def wait_proposal(
    client: FlaskClient, count: int, dice_left: int, timeout: float = 30, dice: Any = None
) -> Any:
    """Poll ``latest`` until a proposal of ``count`` dice (or exactly ``dice``) shows up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/camera/latest?dice_left={dice_left}").get_json()
        p = body["proposal"]
        if p is not None and p["count"] == count and dice in (None, p["dice"]):
            return body
        time.sleep(0.02)
    raise AssertionError(f"no proposal of {count} dice within {timeout} s")


def test_none_camera_by_default_under_testing(client: FlaskClient) -> None:
    status = client.get("/api/camera").get_json()
    assert status["source"] == "none" and status["status"] == "no_camera"
    assert "tapping" in status["message"]
    latest = client.get("/api/camera/latest").get_json()
    assert latest["frame_id"] == 0 and latest["dice"] == [] and latest["count"] == 0
    assert latest["proposal"] is None
    assert client.get("/api/camera/latest?dice_left=9").status_code == 400
    # a throw key asks the built-in demo for dice: it needs the count, and is short
    for query, words in (
        ("throw=g:1", "throw needs dice_left"),
        ("dice_left=0&throw=g:1", "throw needs dice_left"),
        (f"dice_left=3&throw={'x' * 81}", "at most 80 characters"),
    ):
        resp = client.get(f"/api/camera/latest?{query}")
        assert resp.status_code == 400 and words in resp.get_json()["message"], query
    assert client.get("/api/camera/latest?dice_left=3&throw=g:1").status_code == 200
    assert client.get("/api/camera/snapshot.jpg").data[:2] == b"\xff\xd8"


def test_demo_end_to_end_records_a_camera_throw(demo_app: Flask, tmp_path: Path) -> None:
    client = demo_app.test_client()
    game = client.post(
        "/api/games",
        json={"players": ["Ann", "Bob"], "rules": {"preset": "standard"}},
    ).get_json()
    gid, token, version = game["id"], game["control_token"], game["version"]
    dice_left = game["state"]["turn"]["dice_left"]
    assert dice_left == 6

    # a smaller scene first: the proposal says how it differs from the dice left
    body = wait_proposal(client, 3, dice_left)
    assert body["proposal"]["dice"] == TRUTH["b_three.png"]
    assert body["proposal"]["message"] == "I see 3 dice, 6 are left to throw"
    assert body["proposal"]["count_matches"] is False
    body = wait_proposal(client, 6, dice_left)
    proposal = body["proposal"]
    assert proposal["dice"] == TRUTH["a_six.png"]
    assert proposal["message"] == "I see 6 dice"
    assert body["stable"] is True and body["count"] == 6
    assert all(set(d) == {"value", "box", "confidence", "unsure"} for d in body["dice"])
    assert proposal["unsure"] == [False] * 6 and not any(d["unsure"] for d in body["dice"])

    # the player taps one die to correct it, then "Use this throw"
    recorded = [*proposal["dice"][:-1], 1]
    auth = {"Authorization": f"Bearer {token}"}
    act = client.post(
        f"/api/games/{gid}/actions",
        json={"version": version, "type": "throw", "dice": recorded, "source": "camera"},
        headers=auth,
    )
    assert act.status_code == 200, act.get_json()
    state = client.get(f"/api/games/{gid}").get_json()["state"]
    assert sorted(state["turn"]["throw"]) == sorted(recorded)
    url, outcome = f"/api/camera/proposals/{proposal['id']}", {"recorded": recorded, "game": gid}
    stranger = demo_app.test_client()  # no cookie: a game's record needs its token
    assert stranger.post(url, json=outcome).status_code == 401
    wrong = {"Authorization": "Bearer not-the-token"}
    assert stranger.post(url, json=outcome, headers=wrong).status_code == 403
    bad = client.post(url, json={"recorded": recorded, "game": 7}, headers=auth)
    assert bad.status_code == 400 and "game id" in bad.get_json()["message"]
    out = client.post(url, json=outcome, headers=auth)
    assert out.status_code == 200 and out.get_json()["exact"] is False

    stats = CameraLog(log_path_for(tmp_path / "games.sqlite3")).stats(include_demo=True)
    assert stats["recorded"] == 1 and stats["exact"] == 0
    assert stats["dice_accuracy"] == pytest.approx(5 / 6, abs=1e-3)
    assert stats["proposals"] >= 2 and stats["truth_exact_share"] == 1.0
    assert client.post("/api/camera/proposals/nope", json={"recorded": None}).status_code == 404


def test_dice_the_reader_is_unsure_of_are_marked(
    make_app: Callable[..., Flask], demo_dir: Path
) -> None:
    app = make_app(
        CAMERA=f"demo:{demo_dir}",
        CAMERA_DEMO_OPTIONS={"fps": 60, "tumble_frames": 4, "still_frames": 14},
        CAMERA_READER_FACTORY=lambda: PipReader(unsure_values=(5,)),
    )
    client = app.test_client()
    body = wait_proposal(client, 3, 6)  # 1, 5, 5: both 5s read with 0.55
    assert body["proposal"]["dice"] == [1, 5, 5]
    assert body["proposal"]["unsure"] == [False, True, True]
    assert sorted((d["value"], d["unsure"]) for d in body["dice"]) == [
        (1, False),
        (5, True),
        (5, True),
    ]


def test_status_stream_snapshot_and_area(demo_app: Flask) -> None:
    client = demo_app.test_client()
    status = client.get("/api/camera").get_json()
    assert status["source"] == "demo"
    wait_proposal(client, 2, 6)
    status = client.get("/api/camera").get_json()
    assert status["status"] == "ok" and status["frame_id"] > 0
    snap = client.get("/api/camera/snapshot.jpg")
    assert snap.mimetype == "image/jpeg" and snap.data[:2] == b"\xff\xd8"

    resp = client.get("/api/camera/stream")
    assert resp.mimetype == "multipart/x-mixed-replace"
    chunks = iter(resp.response)
    first = next(chunks)
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg")
    assert b"\xff\xd8" in first
    resp.close()

    assert client.get("/api/camera/area").get_json()["whole"] is True
    area = client.post("/api/camera/area", json={"x0": 0, "y0": 0, "x1": 0.5, "y1": 1})
    assert area.get_json()["area"] == {"x0": 0.0, "y0": 0.0, "x1": 0.5, "y1": 1.0}
    bad = client.post("/api/camera/area", json={"x0": 0, "y0": 0, "x1": 5, "y1": 1})
    assert bad.status_code == 400 and "x1" in bad.get_json()["message"]
    # only the left half is read now: scene c's 6 (x=420) is set aside
    body = wait_proposal(client, 1, 6, dice=[2])
    assert body["proposal"]["dice"] == [2]
    assert [d["value"] for d in body["ignored"]] == [6]
    cleared = client.post("/api/camera/area", json={"area": None}).get_json()
    assert cleared["whole"] is True


@pytest.fixture
def tablet_app(camera_app: Callable[..., Flask]) -> Flask:
    # frames posted as fast as the test runs: settle on the first still ones, whatever the time
    return camera_app(
        CAMERA="tablet", CAMERA_UPLOAD_FPS=1000.0, CAMERA_SETTLE=SettleConfig(still_s=0, vote_s=0)
    )


def jpeg(img: Any) -> bytes:
    return bytes(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())


def test_tablet_uploads_settle_into_a_proposal(tablet_app: Flask) -> None:
    client = tablet_app.test_client()
    assert client.get("/api/camera").get_json()["status"] == "no_camera"
    data = jpeg(scene(SCENES["b_three.png"]))
    bodies = []
    for _ in range(10):
        r = client.post("/api/camera/frame?dice_left=3", data=data, content_type="image/jpeg")
        assert r.status_code == 200, r.get_json()
        bodies.append(r.get_json())
    assert bodies[0]["proposal"] is None
    assert bodies[-1]["proposal"]["dice"] == [1, 5, 5]
    assert bodies[-1]["proposal"]["message"] == "I see 3 dice"
    assert client.get("/api/camera").get_json()["status"] == "ok"
    assert client.get("/api/camera/latest").get_json()["frame_id"] == 10


def test_tablet_frames_advise_turning_a_blown_out_exposure_down(tablet_app: Flask) -> None:
    client = tablet_app.test_client()
    fine = scene(SCENES["b_three.png"])
    blown = fine.copy()
    blown[:, :320] = 255  # the left half clipped to white

    def send(img: Any) -> Any:
        r = client.post("/api/camera/frame", data=jpeg(img), content_type="image/jpeg")
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    body = send(fine)
    assert body["light"] is None and body["blown_out"] < 0.05
    body = send(blown)
    assert 0.45 < body["blown_out"] < 0.55
    assert body["light"].startswith("About 50%") and "Turn the camera's exposure" in body["light"]
    assert client.get("/api/camera/latest").get_json()["light"] == body["light"]
    body = send(fine)
    assert body["light"] is None
    # only the throwing area counts: on the right half the picture is fine
    area = {"x0": 0.5, "y0": 0.0, "x1": 1.0, "y1": 1.0}
    assert client.post("/api/camera/area", json=area).status_code == 200
    assert send(blown)["light"] is None


def test_exposure_advice_does_not_flicker_near_its_threshold() -> None:
    from scorekeeper.camera.service import CameraService

    svc = CameraService("none")
    img = scene([])
    shares = []
    for cols in (0, 140, 100, 70, 140):  # 140 columns of 640 clip 22%, 100 16%, 70 11%
        frame = img.copy()
        frame[:, :cols] = 255
        r = svc.process(frame, len(shares) + 1)
        shares.append((round(r.blown_out, 2), r.light is not None))
    assert shares == [(0.0, False), (0.22, True), (0.16, True), (0.11, False), (0.22, True)]


def test_tablet_upload_refusals(camera_app: Callable[..., Flask], tablet_app: Flask) -> None:
    client = tablet_app.test_client()
    r = client.post("/api/camera/frame", data=b"hello", content_type="image/jpeg")
    assert r.status_code == 400 and "JPEG or PNG" in r.get_json()["message"]
    r = client.post("/api/camera/frame", data=b"", content_type="image/jpeg")
    assert r.status_code == 400 and r.get_json()["message"] == (
        "the frame upload is empty; send one JPEG or PNG frame as the body"
        " (Content-Type image/jpeg or image/png) or as the form file 'frame'"
    )
    big = b"\xff\xd8" + b"\0" * (3 * 1024 * 1024)
    r = client.post("/api/camera/frame", data=big, content_type="image/jpeg")
    assert r.status_code == 413
    truncated = jpeg(scene([]))[:500]
    r = client.post("/api/camera/frame", data=truncated, content_type="image/jpeg")
    assert r.status_code == 400
    huge = b"\xff\xd8\xff\xc0\x00\x11\x08" + (20000).to_bytes(2, "big") * 2 + b"\0" * 50
    r = client.post("/api/camera/frame", data=huge, content_type="image/jpeg")
    assert r.status_code == 400 and "20000x20000" in r.get_json()["message"]

    slow = camera_app(CAMERA="tablet", CAMERA_UPLOAD_FPS=2.0).test_client()
    data = jpeg(scene([]))
    codes = [
        slow.post("/api/camera/frame", data=data, content_type="image/jpeg").status_code
        for _ in range(5)
    ]
    assert codes[0] == 200 and 429 in codes

    demo = camera_app(CAMERA="none").test_client()
    r = demo.post("/api/camera/frame", data=data, content_type="image/jpeg")
    assert r.status_code == 409 and "--camera tablet" in r.get_json()["message"]


def test_camera_views_are_bounded_per_device_and_in_all(demo_app: Flask) -> None:
    demo_app.config.update(CAMERA_MAX_STREAMS=3, CAMERA_MAX_STREAMS_PER_CLIENT=2)
    client = demo_app.test_client()
    here = {"REMOTE_ADDR": "10.0.0.5"}
    open_views = [client.get("/api/camera/stream", environ_base=here) for _ in range(2)]
    refused = client.get("/api/camera/stream", environ_base=here)
    assert refused.status_code == 503 and "already has 2 camera views" in refused.json["message"]
    other = client.get("/api/camera/stream", environ_base={"REMOTE_ADDR": "10.0.0.6"})
    assert other.status_code == 200
    full = client.get("/api/camera/stream", environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert full.status_code == 503 and "all 3 camera views" in full.json["message"]
    assert full.headers["Retry-After"] == "5"
    for resp in [*open_views, other]:
        resp.close()
    again = client.get("/api/camera/stream", environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert again.status_code == 200
    again.close()
