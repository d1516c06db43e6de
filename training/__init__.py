"""Training and ONNX export of the dice reader's model (needs the ``train`` extra: torch, onnx)."""
