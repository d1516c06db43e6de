"""Frame checks and codecs: what counts as a usable frame, and safe decoding of uploaded images."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from scorekeeper.errors import CameraError
from scorekeeper.vision.imageio import header_size, to_grey

__all__ = [
    "Image",
    "decode_upload",
    "encode_jpeg",
    "frame_problem",
    "image_size",
    "to_bgr",
    "to_grey",
]

Image = npt.NDArray[np.uint8]

MIN_SIDE = 16
MAX_SIDE = 4096
MAX_UPLOAD_BYTES = 2 * 1024 * 1024


def frame_problem(frame: object) -> str | None:
    """Why ``frame`` is not a usable camera frame, or None when it is.

    >>> frame_problem(np.zeros((480, 640, 3), np.uint8)) is None
    True
    >>> frame_problem(np.zeros((4, 4), np.float32))
    'frame is float32, expected uint8'
    """
    if not isinstance(frame, np.ndarray):
        return f"frame is a {type(frame).__name__}, expected an image array"
    if frame.dtype != np.uint8:
        return f"frame is {frame.dtype}, expected uint8"
    if frame.ndim not in (2, 3) or (frame.ndim == 3 and frame.shape[2] not in (1, 3, 4)):
        return f"frame has shape {frame.shape}, expected HxW, HxWx3 or HxWx4"
    h, w = frame.shape[:2]
    if min(h, w) < MIN_SIDE or max(h, w) > MAX_SIDE:
        return f"frame is {w}x{h}, expected sides from {MIN_SIDE} to {MAX_SIDE} pixels"
    return None


def to_bgr(frame: Image) -> Image:
    """The frame as 3-channel BGR (grey and BGRA are converted; BGR is returned as is)."""
    if frame.ndim == 2 or frame.shape[2] == 1:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    if frame.shape[2] == 4:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR), dtype=np.uint8)
    return frame


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` read from a JPEG or PNG header without decoding, or None if neither.

    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\0\\0\\0\\rIHDR"
    >>> image_size(png + bytes([0, 0, 2, 128, 0, 0, 1, 224]))
    (640, 480)
    """
    if data[:8] != b"\x89PNG\r\n\x1a\n" and data[:2] != b"\xff\xd8":
        return None
    return header_size(data)


def decode_upload(data: bytes, max_bytes: int = MAX_UPLOAD_BYTES) -> Image:
    """Decode an uploaded JPEG or PNG into a BGR frame, checking its size before decoding.

    :raises CameraError: empty, too large, not a JPEG/PNG, too many pixels, or undecodable.
    """
    if not data:
        raise CameraError("the frame upload is empty; send one JPEG or PNG image as the body")
    if len(data) > max_bytes:
        raise CameraError(
            f"the frame upload is {len(data)} bytes; at most {max_bytes} bytes are accepted"
        )
    size = image_size(data)
    if size is None:
        raise CameraError("the frame upload is not a JPEG or PNG image; send image/jpeg")
    w, h = size
    if min(w, h) < MIN_SIDE or max(w, h) > MAX_SIDE:
        raise CameraError(
            f"the uploaded frame is {w}x{h}; "
            f"sides from {MIN_SIDE} to {MAX_SIDE} pixels are accepted"
        )
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise CameraError("the uploaded frame could not be decoded (truncated or corrupt image)")
    return np.asarray(img, dtype=np.uint8)


def encode_jpeg(frame: Image, quality: int = 75) -> bytes:
    """The frame as JPEG bytes."""
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV encodes any valid uint8 image
        raise CameraError("could not encode the frame as JPEG")
    return bytes(buf.tobytes())
