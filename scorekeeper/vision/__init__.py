"""Reading dice from camera frames: the ONNX dice reader, image loading and synthetic scenes."""

from scorekeeper.vision.imageio import load_image, read_image
from scorekeeper.vision.reader import Detection, DiceReader, default_model_path

__all__ = ["Detection", "DiceReader", "default_model_path", "load_image", "read_image"]
