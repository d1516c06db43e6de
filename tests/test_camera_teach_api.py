"""The teach API: corrected dice kept, the teach-your-dice flow, clearing, and its bad input."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from helpers.camera import PipReader
from test_camera_api import TRUTH, demo_dir, wait_proposal  # noqa: F401

from scorekeeper.camera.teach_store import TeachStore, teach_dir_for
from scorekeeper.errors import CameraError
from scorekeeper.vision.adapt import AdaptConfig


@pytest.fixture
def teach_app(make_app: Callable[..., Flask], demo_dir: Path) -> Flask:  # noqa: F811
    return make_app(
        CAMERA_READER_FACTORY=PipReader,
        CAMERA=f"demo:{demo_dir}",
        CAMERA_DEMO_OPTIONS={"fps": 60, "tumble_frames": 4, "still_frames": 90},
    )


def new_game(client: FlaskClient) -> tuple[str, dict[str, str]]:
    game = client.post(
        "/api/games", json={"players": ["Ann", "Bob"], "rules": {"preset": "standard"}}
    ).get_json()
    return game["id"], {"Authorization": f"Bearer {game['control_token']}"}


def test_corrected_dice_are_kept_with_their_values(teach_app: Flask, tmp_path: Path) -> None:
    client = teach_app.test_client()
    gid, auth = new_game(client)
    proposal = wait_proposal(client, 6, 6)["proposal"]
    assert proposal["dice"] == TRUTH["a_six.png"]
    url = f"/api/camera/proposals/{proposal['id']}"
    # die 5 (the 6) corrected to 4, die 0 (the 1) removed as no die
    body = {"recorded": [2, 3, 4, 4, 5], "game": gid, "corrections": [[5, 4], [0, 0]]}
    out = client.post(url, json=body, headers=auth)
    assert out.status_code == 200, out.get_json()
    assert out.get_json()["taught"] == 2
    store = TeachStore(teach_dir_for(tmp_path / "games.sqlite3"))
    images, labels = store.load()
    assert labels == [4, 0] and images[0].shape == (96, 96, 3)
    stats = client.get("/api/camera/teach").get_json()
    assert stats["crops"] == 2 and stats["faces"]["4"] == 1 and stats["not_dice"] == 1
    assert stats["enabled"] is True and stats["adapt"] == "marks"


@pytest.mark.parametrize(
    ("corrections", "words"),
    [
        ([[6, 1]], "index of a proposed die"),
        ([[0, 7]], "1 to 6, or 0 for no die"),
        ("all", "list of at most 6"),
        ([[0, True]], "pairs"),
    ],
)
def test_bad_corrections_are_refused_in_words(
    teach_app: Flask, corrections: Any, words: str
) -> None:
    client = teach_app.test_client()
    gid, auth = new_game(client)
    pid = wait_proposal(client, 6, 6)["proposal"]["id"]
    body = {"recorded": [1, 2, 3, 4, 5, 6], "game": gid, "corrections": corrections}
    out = client.post(f"/api/camera/proposals/{pid}", json=body, headers=auth)
    assert out.status_code == 400 and words in out.get_json()["message"]


def test_teach_flow_keeps_the_dice_seen_as_the_asked_face(teach_app: Flask) -> None:
    client = teach_app.test_client()
    gid, auth = new_game(client)
    wait_proposal(client, 6, 6)
    out = client.post("/api/camera/teach", json={"face": 1, "game": gid}, headers=auth)
    assert out.status_code == 200, out.get_json()
    body = out.get_json()
    assert body["kept"] == 6 and body["taught"]["faces"]["1"] == 6
    assert body["message"] == "Kept 6 dice as 1s. Now show them as 2s."
    clear = client.post("/api/camera/teach/clear", json={"game": gid}, headers=auth)
    assert clear.get_json()["cleared"] == 6 and clear.get_json()["taught"]["crops"] == 0
    assert clear.get_json()["message"] == "Forgot 6 taught dice."


def test_teach_bad_input(teach_app: Flask, make_app: Callable[..., Flask]) -> None:
    client = teach_app.test_client()
    gid, auth = new_game(client)
    for face in (0, 7, "3", None, True):
        out = client.post("/api/camera/teach", json={"face": face, "game": gid}, headers=auth)
        assert out.status_code == 400
        assert "face must be a face value 1 to 6" in out.get_json()["message"]
    # a watching device (no token, or a wrong one) cannot teach or clear
    watcher = teach_app.test_client()
    for url, body in (
        ("/api/camera/teach", {"face": 2, "game": gid}),
        ("/api/camera/teach/clear", {"game": gid}),
    ):
        assert watcher.post(url, json=body).status_code == 401
        wrong = {"Authorization": "Bearer not-the-token"}
        assert watcher.post(url, json=body, headers=wrong).status_code == 403
        no_game = client.post(url, json={"face": 2}, headers=auth)
        assert (
            no_game.status_code == 400
            and "a watching device cannot" in no_game.get_json()["message"]
        )
    # no camera: said in words, nothing kept
    none_app = make_app(CAMERA="none")
    c2 = none_app.test_client()
    gid2, auth2 = new_game(c2)
    out = c2.post("/api/camera/teach", json={"face": 2, "game": gid2}, headers=auth2)
    assert out.status_code == 409 and "no camera to teach" in out.get_json()["message"]


def test_a_full_disk_is_said_and_play_goes_on(
    teach_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = teach_app.test_client()
    gid, auth = new_game(client)
    proposal = wait_proposal(client, 6, 6)["proposal"]

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    out = client.post("/api/camera/teach", json={"face": 3, "game": gid}, headers=auth)
    assert out.status_code == 507
    assert "the disk is full" in out.get_json()["message"]
    assert "Play goes on" in out.get_json()["message"]
    # a correction still logs the throw's outcome; the crop is not kept, and the answer says why
    body = {"recorded": [1, 2, 3, 4, 5, 5], "game": gid, "corrections": [[5, 5]]}
    res = client.post(f"/api/camera/proposals/{proposal['id']}", json=body, headers=auth)
    assert res.status_code == 200
    assert res.get_json()["taught"] == 0 and "disk is full" in res.get_json()["teach_error"]
    assert client.get("/api/camera/teach").get_json()["crops"] == 0


@pytest.mark.parametrize(
    ("setting", "mode", "weight"),
    [(None, "marks", 0.0), ("read", "read", 0.1), (True, "read", 0.1)],
)
def test_the_reader_learns_the_taught_dice_to_mark_or_to_read(
    make_app: Callable[..., Flask],
    demo_dir: Path,  # noqa: F811
    setting: object,
    mode: str,
    weight: float,
) -> None:
    taught: list[tuple[list[int], AdaptConfig]] = []

    class TeachableReader(PipReader):
        def teach(self, crops: list[Any], labels: list[int], config: AdaptConfig) -> None:
            taught.append((list(labels), config))

    app = make_app(
        CAMERA_READER_FACTORY=TeachableReader,
        CAMERA=f"demo:{demo_dir}",
        CAMERA_DEMO_OPTIONS={"fps": 60, "tumble_frames": 4, "still_frames": 90},
        **({} if setting is None else {"CAMERA_TEACH_ADAPT": setting}),
    )
    client = app.test_client()
    gid, auth = new_game(client)
    wait_proposal(client, 6, 6)
    assert [labels for labels, _ in taught] == [[]]  # the reader was built, taught the store
    client.post("/api/camera/teach", json={"face": 2, "game": gid}, headers=auth)
    labels, config = taught[-1]
    assert labels == [2] * 6 and config.weight == weight
    assert config.marks_only == (mode == "marks")
    assert client.get("/api/camera/teach").get_json()["adapt"] == mode


def test_teaching_off_leaves_the_reader_untaught_and_a_bad_mode_is_refused(
    make_app: Callable[..., Flask],
    demo_dir: Path,  # noqa: F811
) -> None:
    taught: list[list[int]] = []

    class TeachableReader(PipReader):
        def teach(self, crops: list[Any], labels: list[int], config: AdaptConfig) -> None:
            taught.append(list(labels))

    app = make_app(
        CAMERA_READER_FACTORY=TeachableReader,
        CAMERA=f"demo:{demo_dir}",
        CAMERA_DEMO_OPTIONS={"fps": 60, "tumble_frames": 4, "still_frames": 90},
        CAMERA_TEACH_ADAPT="off",
    )
    client = app.test_client()
    gid, auth = new_game(client)
    wait_proposal(client, 6, 6)
    client.post("/api/camera/teach", json={"face": 2, "game": gid}, headers=auth)
    assert taught == [] and client.get("/api/camera/teach").get_json()["adapt"] == "off"
    with pytest.raises(CameraError, match="CAMERA_TEACH_ADAPT 'always': expected one of off,"):
        make_app(CAMERA_TEACH_ADAPT="always")
