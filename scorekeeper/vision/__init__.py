"""Reading dice from camera frames: the ONNX dice reader, its settings and image loading."""

from scorekeeper.vision.config import ReaderConfig, default_model_path
from scorekeeper.vision.detection import Detection
from scorekeeper.vision.imageio import load_image, read_image
from scorekeeper.vision.reader import DiceReader

__all__ = [
    "Detection",
    "DiceReader",
    "ReaderConfig",
    "default_model_path",
    "load_image",
    "read_image",
]
