"""``POST /api/camera/photo``: the real dice reader on one still photo, whatever the camera."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from flask import Flask
from flask.testing import FlaskClient
from helpers.bombs import image_bombs

from scorekeeper.camera.reading import default_reader_factory
from scorekeeper.web.camera_api import photo_reader

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())


def test_a_photo_is_read_left_to_right(client: FlaskClient) -> None:
    name = "scene-06-tiles.jpg"
    r = client.post(
        "/api/camera/photo?dice_left=6",
        data=(SAMPLES / name).read_bytes(),
        content_type="image/jpeg",
    )
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["values"] == TRUTH[name] and body["count"] == len(TRUTH[name])
    lefts = [d["box"][0] for d in body["dice"]]
    assert lefts == sorted(lefts)
    for d in body["dice"]:
        x0, y0, x1, y1 = d["box"]
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
        assert d["unsure"] == (d["confidence"] < 0.8)
    shown = " ".join(f"{d['value']}?" if d["unsure"] else str(d["value"]) for d in body["dice"])
    assert body["message"].startswith(f"I see 6 dice: {shown}")


def test_a_photo_as_a_form_file_and_a_count_that_differs(client: FlaskClient) -> None:
    name = "scene-02-felt.jpg"
    photo = (io.BytesIO((SAMPLES / name).read_bytes()), "IMG_0001.jpg", "image/jpeg")
    r = client.post(
        "/api/camera/photo?dice_left=6", data={"photo": photo}, content_type="multipart/form-data"
    )
    body = r.get_json()
    n = len(TRUTH[name])
    assert r.status_code == 200 and body["values"] == TRUTH[name]
    assert body["message"].startswith(f"I see {n} dice, 6 are left to throw: ")


def test_a_photo_with_more_dice_than_are_left_marks_the_doubtful_ones(client: FlaskClient) -> None:
    name = "scene-06-tiles.jpg"
    data = (SAMPLES / name).read_bytes()
    sure = client.post("/api/camera/photo?dice_left=6", data=data, content_type="image/jpeg")
    more = client.post("/api/camera/photo?dice_left=5", data=data, content_type="image/jpeg")
    before, after = sure.get_json()["dice"], more.get_json()["dice"]
    assert [d["value"] for d in after] == [d["value"] for d in before]
    # the weakest die, and any under 0.95, is doubted; the player is told to check them
    weakest = min(range(len(before)), key=lambda i: before[i]["confidence"])
    assert after[weakest]["unsure"]
    assert [d["unsure"] for d in after] == [
        i == weakest or d["confidence"] < 0.95 for i, d in enumerate(before)
    ]
    message = more.get_json()["message"]
    assert message.startswith("I see 6 dice, 5 are left to throw: ")
    assert message.endswith("(check the ones marked ?)")


def test_a_photo_with_no_dice(client: FlaskClient) -> None:
    _, png = cv2.imencode(".png", np.full((240, 320, 3), 128, np.uint8))
    r = client.post("/api/camera/photo", data=png.tobytes(), content_type="image/png")
    assert r.status_code == 200
    assert r.get_json() == {"dice": [], "values": [], "count": 0, "message": "I see 0 dice"}


FORM = "application/x-www-form-urlencoded"


def test_bad_photos_get_clear_errors(app: Flask, client: FlaskClient) -> None:
    def post(data: bytes, query: str = "") -> tuple[int, str]:
        r = client.post(f"/api/camera/photo{query}", data=data, content_type="image/jpeg")
        body = r.get_json()
        assert set(body) == {"error", "message"}
        return r.status_code, body["message"]

    empty = (
        "the photo upload is empty; send one JPEG or PNG photo as the body"
        " (Content-Type image/jpeg or image/png) or as the form file 'photo'"
    )
    assert post(b"") == (400, empty)
    # a body sent as a form (curl --data-binary's default type) holds no photo
    r = client.post("/api/camera/photo", data=b"not a picture", content_type=FORM)
    assert r.status_code == 400 and r.get_json()["message"] == empty
    code, msg = post(b"not a picture at all" * 10)
    assert code == 400 and msg.startswith("the photo: not a readable image; expected a PNG, JPEG")
    code, msg = post(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + bytes(64))
    assert code == 400 and "a HEIC image" in msg and "Most Compatible" in msg
    cut = (SAMPLES / "scene-01-wood.jpg").read_bytes()[:3000]
    code, msg = post(cut)
    assert code == 400 and "truncated" in msg
    huge = b"\xff\xd8\xff\xc0\x00\x11\x08" + (20000).to_bytes(2, "big") * 2 + b"\0" * 50
    code, msg = post(huge + b"\xff\xd9")
    assert code == 400 and "20000×20000 pixels: too large" in msg
    code, msg = post((SAMPLES / "scene-01-wood.jpg").read_bytes(), "?dice_left=9")
    assert code == 400 and "dice_left" in msg
    app.config["PHOTO_MAX_UPLOAD_BYTES"] = 1000
    code, msg = post((SAMPLES / "scene-01-wood.jpg").read_bytes())
    assert code == 413 and "at most 1000" in msg


def test_one_photo_is_read_at_a_time(app: Flask, client: FlaskClient) -> None:
    _, busy = photo_reader(app)
    assert busy.acquire()
    try:
        data = (SAMPLES / "scene-01-wood.jpg").read_bytes()
        r = client.post("/api/camera/photo", data=data, content_type="image/jpeg")
        assert r.status_code == 429 and r.headers["Retry-After"] == "1"
    finally:
        busy.release()
    r = client.post("/api/camera/photo", data=data, content_type="image/jpeg")
    assert r.status_code == 200 and r.get_json()["values"] == TRUTH["scene-01-wood.jpg"]


def test_image_bombs_of_every_format_are_refused_before_decoding(client: FlaskClient) -> None:
    for name, data in image_bombs().items():
        r = client.post("/api/camera/photo", data=data, content_type="application/octet-stream")
        assert r.status_code == 400, (name, r.get_json())
        message = r.get_json()["message"]
        assert "too large" in message or "not a readable image" in message, (name, message)
        assert "JPEG" in message  # says what is accepted


def test_a_small_tiff_webp_and_bmp_are_read(client: FlaskClient) -> None:
    image = np.full((120, 160, 3), 128, np.uint8)
    for ext in (".tiff", ".webp", ".bmp"):
        ok, data = cv2.imencode(ext, image)
        assert ok
        r = client.post("/api/camera/photo", data=data.tobytes(), content_type="image/x")
        assert r.status_code == 200, (ext, r.get_json())


def test_a_photo_over_16_megapixels_is_read_smaller_or_refused(client: FlaskClient) -> None:
    ok, jpeg = cv2.imencode(".jpg", np.zeros((3000, 6000, 3), np.uint8))  # 18 MP
    assert ok
    r = client.post("/api/camera/photo", data=jpeg.tobytes(), content_type="image/jpeg")
    assert r.status_code == 200, r.get_json()
    ok, png = cv2.imencode(".png", np.zeros((3000, 6000, 3), np.uint8))
    r = client.post("/api/camera/photo", data=png.tobytes(), content_type="image/png")
    assert r.status_code == 400 and "16 megapixels" in r.get_json()["message"]


def test_a_photo_short_of_the_dice_left_offers_the_dice_turned_down_as_unsure(
    make_app: Callable[..., Flask],
) -> None:
    strict = make_app(CAMERA_READER_FACTORY=default_reader_factory(score_threshold=0.995))
    name = "scene-06-tiles.jpg"
    body = (
        strict.test_client()
        .post("/api/camera/photo", data=(SAMPLES / name).read_bytes(), content_type="image/jpeg")
        .get_json()
    )
    assert body["count"] < 6  # without the dice left, only the dice it is sure of
    r = strict.test_client().post(
        "/api/camera/photo?dice_left=6",
        data=(SAMPLES / name).read_bytes(),
        content_type="image/jpeg",
    )
    filled = r.get_json()
    assert r.status_code == 200 and filled["values"] == TRUTH[name] and filled["count"] == 6
    assert sum(d["unsure"] for d in filled["dice"]) == 6 - body["count"]
    assert filled["message"].startswith("I see 6 dice: ")
    assert filled["message"].endswith("(check the ones marked ?)")
