"""Reading image files and checking frames, with bounded memory and clear errors."""

from __future__ import annotations

import math
import os
import struct
from pathlib import Path

import cv2
import numpy as np

from scorekeeper.errors import ImageError

MIN_SIDE = 16
"""Frames with a side shorter than this many pixels are refused."""

MAX_PIXELS = 40_000_000
"""Frames and files with more pixels than this (e.g. 8000×5000) are refused."""

MAX_JPEG_PIXELS = 200_000_000
"""JPEG files with more pixels than :data:`MAX_PIXELS`, up to this many (a phone's 48, 50, 108
or 200 megapixel photo), are decoded 2 or 4 times smaller, so memory stays bounded."""

MAX_FILE_BYTES = 200 * 1024 * 1024
"""Image files larger than this are refused before they are read."""

ACCEPTED = (
    "a PNG, JPEG, BMP, WebP or TIFF image of 16×16 pixels to 40 megapixels"
    " (a JPEG up to 200 megapixels)"
)

_REDUCED_FLAGS = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}
"""cv2.imdecode's flag for each factor: libjpeg's scaled decoding, never the whole image."""


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's SOF marker, or None when none is found."""
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xFF, 0x01) or 0xD0 <= marker <= 0xD9:
            i += 2 if marker != 0xFF else 1
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > n:
                return None
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    return None


_TIFF_WIDTH, _TIFF_HEIGHT, _TIFF_BITS, _TIFF_SAMPLES, _TIFF_TILE_W, _TIFF_TILE_H = (
    256, 257, 258, 277, 322, 323,
)  # fmt: skip
_TIFF_MAX_ENTRIES = 512


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a TIFF's first directory, or None when it cannot be read or would
    need more memory than its pixels say (tiles larger than the image, more than 4 samples of
    more than 16 bits, a BigTIFF)."""
    order = {b"II*\x00": "<", b"MM\x00*": ">"}.get(data[:4])
    if order is None or len(data) < 8:
        return None
    (offset,) = struct.unpack(order + "I", data[4:8])
    if offset + 2 > len(data):
        return None
    (count,) = struct.unpack(order + "H", data[offset : offset + 2])
    if count > _TIFF_MAX_ENTRIES or offset + 2 + 12 * count > len(data):
        return None
    tags: dict[int, int] = {}
    for k in range(count):
        at = offset + 2 + 12 * k
        tag, kind, n = struct.unpack(order + "HHI", data[at : at + 8])
        width = {3: 2, 4: 4}.get(kind)  # SHORT or LONG; other kinds hold nothing checked here
        if width is None or n < 1:
            continue
        where = at + 8
        if n * width > 4:  # the values do not fit in the entry: it holds their offset
            (where,) = struct.unpack(order + "I", data[at + 8 : at + 12])
        if where + width > len(data):
            return None
        (value,) = struct.unpack(order + ("H" if width == 2 else "I"), data[where : where + width])
        tags[tag] = int(value)
    if _TIFF_WIDTH not in tags or _TIFF_HEIGHT not in tags:
        return None
    w, h = tags[_TIFF_WIDTH], tags[_TIFF_HEIGHT]
    if tags.get(_TIFF_SAMPLES, 1) > 4 or tags.get(_TIFF_BITS, 8) > 16:
        return None
    if tags.get(_TIFF_TILE_W, 0) > max(w, 16) * 2 or tags.get(_TIFF_TILE_H, 0) > max(h, 16) * 2:
        return None
    return w, h


def header_size(data: bytes) -> tuple[int, int] | None:
    """The (width, height) an image file declares in its header, or None if not recognised.

    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00\\x00\\x00\\rIHDR"
    >>> header_size(png + bytes([0, 0, 1, 0, 0, 0, 0, 2]))
    (256, 2)
    """
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:2] == b"BM" and len(data) >= 26:
        w, h = struct.unpack("<ii", data[18:26])
        return abs(int(w)), abs(int(h))
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return int(w), int(h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            w = 1 + int.from_bytes(data[24:27], "little")
            h = 1 + int.from_bytes(data[27:30], "little")
            return w, h
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", data[26:30])
            return int(w) & 0x3FFF, int(h) & 0x3FFF
        if chunk == b"VP8L" and len(data) >= 25:
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    return None


def _check_size(width: int, height: int, what: str, most: int = MAX_PIXELS) -> None:
    """Raise ImageError when a width × height is outside the accepted range (``most`` pixels)."""
    if width < MIN_SIDE or height < MIN_SIDE:
        raise ImageError(f"{what} is {width}×{height} pixels: too small; expected {ACCEPTED}")
    if width * height > most:
        raise ImageError(
            f"{what} is {width}×{height} pixels: too large (more than {most / 1e6:g} megapixels);"
            f" expected {ACCEPTED}"
        )


def reduction_for(width: int, height: int, most: int = MAX_PIXELS) -> int:
    """The factor, 1, 2, 4 or 8, by which a JPEG of width × height is decoded smaller: the
    least that brings it within ``most`` pixels (:data:`MAX_PIXELS`).

    >>> reduction_for(4000, 3000), reduction_for(8000, 6000), reduction_for(20000, 20000)
    (1, 2, 4)
    """
    for factor in (1, 2, 4):
        if math.ceil(width / factor) * math.ceil(height / factor) <= most:
            return factor
    return 8


def _unsupported_kind(data: bytes) -> str | None:
    """The name of a photo format OpenCV does not read (an ISO media ``ftyp`` box: HEIC, as an
    iPhone saves, or AVIF), else None.

    >>> heic = b"\\0\\0\\0\\x18ftypheic\\0\\0\\0\\0mif1heic"
    >>> _unsupported_kind(heic), _unsupported_kind(b"GIF89a")
    ('HEIC', None)
    """
    if data[4:8] != b"ftyp":
        return None
    brand = data[8:12]
    if brand in (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"):
        return "AVIF" if b"avif" in data[8:40] else "HEIC"
    return "AVIF" if brand in (b"avif", b"avis") else None


def _truncated(data: bytes) -> bool:
    """True when a JPEG lacks its end marker or a PNG its IEND chunk."""
    if data[:2] == b"\xff\xd8":
        tail = data[-4096:].rstrip(b"\x00\r\n ")
        return b"\xff\xd9" not in tail[-64:]
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return b"IEND" not in data[-64:]
    return False


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an image file as a BGR uint8 array (H, W, 3); a JPEG over 40 megapixels comes
    decoded 2 or 4 times smaller (:func:`read_image` says by how much).

    :raises ImageError: when the file is missing, empty, not an image, truncated,
        smaller than 16×16 or larger than 40 megapixels (a JPEG: 200), checked before decoding.
    """
    return read_image(path)[0]


def read_image(path: str | os.PathLike[str]) -> tuple[np.ndarray, int]:
    """Read an image file as a BGR uint8 array (H, W, 3) and the factor it was decoded smaller
    by: 1, or for a JPEG over 40 megapixels 2 or 4 (a pixel (x, y) of the array is (x * f,
    y * f) of the file's). EXIF orientation is applied.

    :raises ImageError: as :func:`load_image`.
    """
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        msg = f"{p}: cannot read the file ({exc.strerror}); expected {ACCEPTED}"
        raise ImageError(msg) from exc
    if not p.is_file():
        raise ImageError(f"{p}: not a file; expected {ACCEPTED}")
    if size == 0:
        raise ImageError(f"{p}: the file is empty; expected {ACCEPTED}")
    if size > MAX_FILE_BYTES:
        raise ImageError(f"{p}: the file is {size} bytes, too large; expected {ACCEPTED}")
    try:
        data = p.read_bytes()
    except OSError as exc:
        msg = f"{p}: cannot read the file ({exc.strerror}); expected {ACCEPTED}"
        raise ImageError(msg) from exc
    return decode_image(data, str(p))


def decode_image(
    data: bytes, what: str = "the image", most: int = MAX_PIXELS
) -> tuple[np.ndarray, int]:
    """Decode an image file's bytes as :func:`read_image` does; ``what`` names it in errors.

    Its size is read from its header before anything is decoded, so a small file that
    declares a huge image costs nothing; a file whose header is not one of the
    :data:`ACCEPTED` formats' is refused undecoded (OpenCV reads more formats, but their
    size could not be checked first). ``most``: the most pixels decoded (a JPEG with more,
    up to :data:`MAX_JPEG_PIXELS`, is decoded 2, 4 or 8 times smaller).

    :raises ImageError: as :func:`load_image`, but for a file that cannot be read or is empty.
    """
    if not data:
        raise ImageError(f"{what}: the file is empty; expected {ACCEPTED}")
    declared = header_size(data)
    jpeg = data[:2] == b"\xff\xd8"
    if declared is None:
        kind = _unsupported_kind(data)
        fault = f"a {kind} image, which is not read here" if kind else "not a readable image"
        hint = (
            "; save it as JPEG (on an iPhone: Settings > Camera > Formats > Most Compatible)"
            if kind
            else ""
        )
        raise ImageError(f"{what}: {fault}; expected {ACCEPTED}{hint}")
    _check_size(declared[0], declared[1], what, MAX_JPEG_PIXELS if jpeg else most)
    factor = reduction_for(*declared, most) if jpeg else 1
    if _truncated(data):
        raise ImageError(f"{what}: the image is truncated (no end marker); expected {ACCEPTED}")
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), _REDUCED_FLAGS[factor])
    if image is None or image.size == 0:
        kind = _unsupported_kind(data)
        fault = f"a {kind} image, which is not read here" if kind else "not a readable image"
        hint = (
            "; save it as JPEG (on an iPhone: Settings > Camera > Formats > Most Compatible)"
            if kind
            else ""
        )
        raise ImageError(f"{what}: {fault}; expected {ACCEPTED}{hint}")
    _check_size(int(image.shape[1]), int(image.shape[0]), what, most)
    return np.ascontiguousarray(image), factor


def check_frame(frame: object) -> np.ndarray:
    """Return the frame as a 2-D grey or 3-D BGR/BGRA uint8 array, or raise ImageError.

    :raises ImageError: for anything but a uint8 array shaped (H, W), (H, W, 1), (H, W, 3)
        or (H, W, 4) with sides of at least 16 pixels and at most 40 megapixels.
    """
    if not isinstance(frame, np.ndarray):
        raise ImageError(f"the frame is a {type(frame).__name__}; expected a numpy uint8 array")
    if frame.dtype != np.uint8:
        raise ImageError(f"the frame has dtype {frame.dtype}; expected uint8")
    shape = frame.shape
    ok = len(shape) == 2 or (len(shape) == 3 and shape[2] in (1, 3, 4))
    if not ok:
        raise ImageError(
            f"the frame has shape {shape}; expected (H, W) grey, (H, W, 3) BGR or (H, W, 4) BGRA"
        )
    _check_size(int(shape[1]), int(shape[0]), "the frame")
    return frame


def to_grey(frame: np.ndarray) -> np.ndarray:
    """A checked frame as a 2-D uint8 grey array (BGR weights as in OpenCV)."""
    if frame.ndim == 2:
        return frame
    channels = frame.shape[2]
    if channels == 1:
        return frame[:, :, 0]
    if channels == 4:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY))
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
