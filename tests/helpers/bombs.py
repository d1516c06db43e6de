"""Image bombs: small files whose headers declare huge images, one for every format OpenCV
decodes (and a few it may), for the upload tests and ``benchmarks/bench_attacks.py``."""

from __future__ import annotations

import struct
import zlib


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\0" * 4_000_000, 9)  # 4 MB of rows in about 4 KB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def _tiff(width: int, height: int) -> bytes:
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1),
               (262, 3, 1, 1), (273, 4, 1, 8 + 2 + 12 * 9 + 4), (277, 3, 1, 1),
               (278, 4, 1, height), (279, 4, 1, width * height)]  # fmt: skip
    ifd = struct.pack("<H", len(entries))
    for tag, kind, n, value in entries:
        packed = struct.pack("<H", value) + b"\0\0" if kind == 3 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, kind, n) + packed
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + b"\0" * 1_800_000


def _jpeg(width: int, height: int) -> bytes:
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + sof + b"\0" * 10_000 + b"\xff\xd9"


def _bmp(width: int, height: int) -> bytes:
    header = b"BM" + struct.pack("<IHHI", 0, 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 0, 0, 0, 0)
    return header + info + b"\0" * 10_000


def _webp(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0"
    body += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body + b"\0" * 1000


def image_bombs() -> dict[str, bytes]:
    """Each bomb by name: a few KB to 1.8 MB that declare 1.6 gigapixels or more."""
    big = 40_000
    return {
        "png": _png(big, big),
        "tiff": _tiff(big, big),
        "tiff-big-endian": b"MM\0*" + _tiff(big, big)[4:],  # a wrong-endian header: refused
        "jpeg": _jpeg(65_000, 65_000),
        "bmp": _bmp(big, big),
        "webp": _webp(16_000, 16_000),
        "gif": b"GIF89a" + struct.pack("<HH", 65_535, 65_535) + b"\0" * 1000,
        "ppm": b"P6\n40000 40000\n255\n" + b"\0" * 100_000,
        "pgm": b"P5\n40000 40000\n255\n" + b"\0" * 100_000,
        "pbm": b"P4\n40000 40000\n" + b"\0" * 100_000,
        "pfm": b"PF\n40000 40000\n-1.0\n" + b"\0" * 100_000,
        "sun-raster": b"\x59\xa6\x6a\x95" + struct.pack(">IIIIIII", big, big, 24, 0, 1, 0, 0),
        "hdr": b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 40000 +X 40000\n" + b"\0" * 1000,
        "jpeg2000": b"\0\0\0\x0cjP  \r\n\x87\n" + b"\0" * 1000,
        "exr": b"\x76\x2f\x31\x01" + b"\0" * 1000,
    }
