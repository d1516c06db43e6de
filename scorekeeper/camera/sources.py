"""Camera sources: a webcam or stream through OpenCV, the demo scenes, the tablet, or none.

A source is opened, read frame by frame and closed by the capture thread
(:mod:`scorekeeper.camera.capture`), which also paces sources that have an ``interval``.
``parse_source`` turns the ``--camera`` text into a :class:`SourceSpec`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from scorekeeper.camera.frames import Image
from scorekeeper.camera.states import SourceKind
from scorekeeper.camera.tabletop import render_throw
from scorekeeper.errors import CameraError

DEFAULT_DEMO_DIR = Path(__file__).resolve().parents[2] / "sample_images"
THROW_STYLES = ("wood", "felt", "tray", "text", "tiles")
"""The tables the built-in demo throws its dice on, one after another (not plain paper: a
rendered sheet can clip to white and set off the exposure advice)."""
THROW_SIZE = (640, 480)
THROW_DIE_SIDE = (40.0, 60.0)
"""Top-face side of the demo's thrown dice in pixels (as in ``sample_images/``)."""

ThrowAsk = Callable[[], "tuple[int, str] | None"]
"""What the demo asks before each frame: the dice wanted and the throw's key, or None."""
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")

ACCEPTED = "auto, none, demo, tablet, a webcam index (0, 1, ...), a stream URL or a video file"


class FrameSource(Protocol):
    """What the capture thread needs of a source."""

    name: str
    interval: float
    """Seconds between frames the capture thread keeps (0: ``read`` paces itself)."""
    info: dict[str, Any]
    """Facts about the last frame read (the demo's scene and true values)."""

    def open(self) -> None:
        """Open the device; raises OSError when there is no camera."""

    def read(self) -> Image | None:
        """The next frame, or None when the source has ended or dropped out."""

    def close(self) -> None:
        """Release the device (safe to call more than once)."""


@dataclass(frozen=True)
class SourceSpec:
    """A parsed ``--camera`` value: its kind and the index, URL or folder it names."""

    kind: SourceKind
    target: str = ""

    def __post_init__(self) -> None:
        """Hold the kind as a :class:`SourceKind` (a plain string is accepted)."""
        object.__setattr__(self, "kind", SourceKind(self.kind))

    @property
    def label(self) -> str:
        """How the source is shown to people, e.g. ``webcam 0`` or ``demo``."""
        if self.kind == SourceKind.WEBCAM:
            return f"webcam {self.target}"
        if self.kind == SourceKind.URL:
            return re.sub(r"//[^/@]*@", "//***@", self.target)  # hide credentials
        return self.kind


def parse_source(text: str | int | None) -> SourceSpec:
    """Parse a ``--camera`` value.

    :raises CameraError: a value that names no kind of source.

    >>> parse_source("0") == SourceSpec("webcam", "0"), parse_source("http://cam/video").kind
    (True, <SourceKind.URL: 'url'>)
    """
    if text is None:
        return SourceSpec(SourceKind.AUTO)
    s = str(text).strip()
    low = s.lower()
    if low in ("", "auto", "default"):
        return SourceSpec(SourceKind.AUTO)
    if low in ("none", "off", "manual"):
        return SourceSpec(SourceKind.NONE)
    if low in ("tablet", "upload", "browser", "phone"):
        return SourceSpec(SourceKind.TABLET)
    if low == "demo":
        return SourceSpec(SourceKind.DEMO)  # the built-in demo: sample_images/, then thrown dice
    if low.startswith("demo:"):
        return SourceSpec(SourceKind.DEMO, s[5:])
    if s.isascii() and s.isdigit() and len(s) <= 3:
        return SourceSpec(SourceKind.WEBCAM, str(int(s)))
    if re.match(r"^[a-z][a-z0-9+.-]*://", low) or Path(s).is_file():
        return SourceSpec(SourceKind.URL, s)
    raise CameraError(f"unknown camera source {s!r}; accepted: {ACCEPTED}")


def video_interval(cap: Any) -> float:
    """Seconds between the frames of an opened video file (its own frame rate), 0 when the
    file names none: a recording plays at the speed it was taken, not as fast as it decodes."""
    fps = float(cap.get(cv2.CAP_PROP_FPS) or 0)
    return 1.0 / fps if 0 < fps <= 240 else 0.0


class OpenCVSource:
    """A webcam index or a stream URL / video file read through ``cv2.VideoCapture``."""

    interval = 0.0

    def __init__(self, spec: SourceSpec) -> None:
        """Wrap the webcam or URL named by ``spec`` (not opened yet)."""
        self.spec = spec
        self.name = spec.label
        self.info: dict[str, Any] = {}
        self._cap: Any = None

    def open(self) -> None:
        """Open the device or stream.

        :raises OSError: no such camera, permission refused, or the stream cannot be reached.
        """
        if self._cap is not None:
            return
        with contextlib.suppress(AttributeError):  # quiet OpenCV's probing warnings
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
        webcam = self.spec.kind == SourceKind.WEBCAM
        target: int | str = int(self.spec.target) if webcam else self.spec.target
        cap = cv2.VideoCapture(target)
        if not cap.isOpened():
            cap.release()
            raise OSError(f"cannot open {self.name} (not connected, busy or permission refused)")
        self._cap = cap
        self.interval = video_interval(cap) if Path(str(target)).is_file() else 0.0

    def read(self) -> Image | None:
        """The next frame, or None when the device gave none."""
        if self._cap is None:
            return None
        ok, img = self._cap.read()
        return img if ok else None

    def close(self) -> None:
        """Release the device."""
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


def load_truth(folder: Path) -> dict[str, list[int]]:
    """The true dice of each scene from ``truth.json`` in the folder (file name -> values).

    Accepts ``{"file": [values]}``, ``{"file": {"values"|"dice": [...]}}`` (dice as numbers or
    ``{"value": n}`` objects), or a list of ``{"file"|"image", "values"|"dice"}`` objects.
    """
    path = folder / "truth.json"
    if not path.is_file():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    items: list[tuple[str, Any]] = []
    if isinstance(raw, dict):
        if isinstance(raw.get("scenes") or raw.get("images"), list):
            raw = raw.get("scenes") or raw.get("images")
        else:
            items = list(raw.items())
    if isinstance(raw, list):
        for entry in raw:
            if isinstance(entry, dict):
                name = entry.get("file") or entry.get("image") or entry.get("name")
                items.append((str(name), entry))
    truth: dict[str, list[int]] = {}
    for name, val in items:
        if isinstance(val, dict):
            val = val.get("values", val.get("dice", val.get("truth")))
        if not isinstance(val, list):
            continue
        values = [int(v["value"]) if isinstance(v, dict) else int(v) for v in val]
        truth[Path(name).name] = sorted(values)
    return truth


def load_boxes(folder: Path) -> dict[str, list[tuple[float, float, float, float]]]:
    """Die boxes per scene from ``labels.json`` (``{"file": [{"value", "box"}, ...]}``), if any."""
    path = folder / "labels.json"
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        out: dict[str, list[tuple[float, float, float, float]]] = {}
        for name, dice in raw.items():
            boxes = [d["box"] for d in dice if isinstance(d, dict) and "box" in d]
            out[Path(name).name] = [
                (float(a), float(b), float(c), float(d)) for a, b, c, d in boxes
            ]
        return out
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


class _Props:
    """A scene taken apart for tumbling: the empty table and each die's patch and place."""

    def __init__(self, img: Image, boxes: list[tuple[float, float, float, float]]) -> None:
        h, w = img.shape[:2]
        mask = np.zeros((h, w), np.uint8)
        self.pieces: list[tuple[Image, Image, int, int]] = []
        for x0, y0, x1, y1 in boxes:
            pad = 0.15 * max(x1 - x0, y1 - y0)
            a, b = max(0, int(x0 - pad)), max(0, int(y0 - pad))
            c, d = min(w, int(x1 + pad) + 1), min(h, int(y1 + pad) + 1)
            if c - a < 4 or d - b < 4:
                continue
            mask[b:d, a:c] = 255
            patch = img[b:d, a:c].copy()
            shape = np.zeros(patch.shape[:2], np.uint8)
            ellipse = (((c - a) / 2, (d - b) / 2), ((c - a) * 1.12, (d - b) * 1.12), 0.0)
            cv2.ellipse(shape, ellipse, 255, -1)
            self.pieces.append((patch, shape, a, b))
        small = cv2.resize(img, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
        small_mask = cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_NEAREST)
        filled = cv2.inpaint(small, small_mask, 3, cv2.INPAINT_TELEA)
        table = cv2.resize(filled, (w, h), interpolation=cv2.INTER_LINEAR)
        self.table: Image = np.where(mask[:, :, None] > 0, table, img).astype(np.uint8)


class DemoSource:
    """Plays the scenes of a folder as a camera: each scene tumbles for a few frames, then rests.

    With ``labels.json`` (die boxes) beside the images, only the dice move while tumbling (each
    rolls and slides over the table, blurred); without it the whole picture shakes.

    With ``throws``, asked before every frame: once it names a number of dice and a key, the
    demo throws that many freshly rendered dice (:func:`scorekeeper.camera.tabletop.render_throw`,
    seeded), lets them tumble and then leaves them lying, as real dice lie, until a new key
    asks for the next throw. The folder's scenes play only until the first such ask.
    """

    def __init__(
        self,
        folder: Path | str = DEFAULT_DEMO_DIR,
        *,
        fps: float = 15.0,
        tumble_frames: int = 8,
        still_frames: int = 30,
        noise: int = 2,
        seed: int = 0,
        throws: ThrowAsk | None = None,
    ) -> None:
        """Play ``folder``'s images at ``fps``: ``tumble_frames`` moving, then ``still_frames``;
        throw dice when ``throws`` asks for them."""
        self.folder = Path(folder)
        self.throws = throws
        self._throw: tuple[str, Image, list[int], _Props] | None = None
        self._throw_key: str | None = None
        self._throw_step = 0
        self._thrown = 0
        self.name = "demo"
        self.interval = 1.0 / fps if fps > 0 else 0.0
        self.tumble_frames = tumble_frames
        self.still_frames = still_frames
        self.noise = noise
        self.seed = seed
        self.info: dict[str, Any] = {}
        self.scenes: list[tuple[str, Image, list[int] | None]] = []
        self._boxes: dict[str, list[tuple[float, float, float, float]]] = {}
        self._props: dict[str, _Props] = {}
        self._noise: list[np.ndarray[Any, np.dtype[np.int16]]] = []
        self._n = 0
        self._rng = np.random.default_rng(seed)

    def open(self) -> None:
        """Load the scenes.

        :raises OSError: the folder is missing or holds no readable image.
        """
        if not self.folder.is_dir():
            raise OSError(f"the demo folder {self.folder} does not exist")
        truth = load_truth(self.folder)
        scenes = []
        for path in sorted(self.folder.iterdir()):
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is not None:
                scenes.append((path.name, np.asarray(img, np.uint8), truth.get(path.name)))
        if not scenes:
            raise OSError(f"the demo folder {self.folder} holds no images")
        self.scenes = scenes
        self._boxes = load_boxes(self.folder)
        self._props = {  # ~15 ms a scene, done here so the live picture never stutters
            name: _Props(img, self._boxes[name]) for name, img, _ in scenes if self._boxes.get(name)
        }
        self._rng = np.random.default_rng(self.seed)
        self._n = 0
        self._noise = []
        self._throw, self._throw_key, self._throw_step, self._thrown = None, None, 0, 0

    @property
    def period(self) -> int:
        """Frames per scene (tumbling plus still)."""
        return self.tumble_frames + self.still_frames

    def read(self) -> Image | None:
        """The next frame: of the throw asked for, else of the folder's loop."""
        if not self.scenes:
            return None
        asked = self.throws() if self.throws is not None else None
        if asked is not None and asked[1] != self._throw_key:
            self._throw_key = asked[1]
            self._throw = self.render_throw(asked[0])
            self._throw_step = 0
        if self._throw is not None:
            step, self._throw_step = self._throw_step, self._throw_step + 1
            return self._scene_frame(*self._throw, step, step)
        n, self._n = self._n, self._n + 1
        index, step = divmod(n, self.period)
        name, img, truth = self.scenes[index % len(self.scenes)]
        return self._scene_frame(name, img, truth, self._props.get(name), step, n)

    def _scene_frame(
        self,
        name: str,
        img: Image,
        truth: list[int] | None,
        props: _Props | None,
        step: int,
        n: int,
    ) -> Image:
        """Frame ``step`` of a scene (tumbling, then still; ``n`` seeds the still noise), with
        :attr:`info` set: its dice roll when their boxes (``props``) are known, else the
        picture shakes."""
        phase = "tumble" if step < self.tumble_frames else "still"
        self.info = {"scene": name, "truth": truth, "phase": phase, "step": step}
        if phase == "tumble":
            strength = 1.0 - step / max(1, self.tumble_frames)
            return self._roll(props, strength) if props is not None else self._tumble(img, strength)
        return self._with_noise(img, n)

    def render_throw(self, dice: int) -> tuple[str, Image, list[int], _Props]:
        """The next throw of ``dice`` dice (1 to 6): its name, picture, true values and props."""
        k, self._thrown = self._thrown, self._thrown + 1
        style = THROW_STYLES[k % len(THROW_STYLES)]
        img, labels = render_throw(
            self.seed * 1_000_003 + k,
            *THROW_SIZE,
            n_dice=min(6, max(1, dice)),
            die_size=THROW_DIE_SIDE,
            style=style,
        )
        picture = np.asarray(img, np.uint8)
        props = _Props(picture, [box for _, box in labels])
        return f"throw-{k + 1}-{style}", picture, sorted(v for v, _ in labels), props

    def _tumble(self, img: Image, strength: float) -> Image:
        h, w = img.shape[:2]
        rng = self._rng
        angle = float(rng.uniform(-25, 25)) * strength
        dx, dy = (rng.uniform(-0.08, 0.08, 2) * (w, h) * strength).tolist()
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        m[:, 2] += (dx, dy)
        out = cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)
        k = max(1, int(9 * strength)) | 1
        if k > 1:
            out = cv2.blur(out, (k, 1) if rng.random() < 0.5 else (1, k))
        return np.asarray(out, np.uint8)

    def _roll(self, props: _Props, strength: float) -> Image:
        """The table with each die turned and slid away from where it will come to rest."""
        out = props.table.copy()
        h, w = out.shape[:2]
        rng = self._rng
        for patch, shape, x, y in props.pieces:
            ph, pw = patch.shape[:2]
            m = cv2.getRotationMatrix2D((pw / 2, ph / 2), float(rng.uniform(-90, 90)) * strength, 1)
            turned = cv2.warpAffine(patch, m, (pw, ph), borderMode=cv2.BORDER_REPLICATE)
            alpha = cv2.warpAffine(shape, m, (pw, ph))
            k = max(1, int(11 * strength)) | 1
            if k > 1:
                turned = cv2.blur(turned, (k, k // 2 | 1))
            dx, dy = (rng.uniform(-1, 1, 2) * 80 * strength).astype(int).tolist()
            x0, y0 = min(max(0, x + dx), w - pw), min(max(0, y + dy), h - ph)
            region = out[y0 : y0 + ph, x0 : x0 + pw]
            a = (alpha[:, :, None].astype(np.float32)) / 255.0
            region[:] = (turned * a + region * (1 - a)).astype(np.uint8)
        return out

    def _with_noise(self, img: Image, n: int) -> Image:
        if self.noise <= 0:
            return img.copy()
        if len(self._noise) < 4 or self._noise[0].shape != img.shape:
            rng = np.random.default_rng(self.seed + 1)
            self._noise = [
                rng.integers(-self.noise, self.noise + 1, img.shape, dtype=np.int16)
                for _ in range(4)
            ]
        noisy = img.astype(np.int16) + self._noise[n % 4]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def close(self) -> None:
        """Nothing to release."""
