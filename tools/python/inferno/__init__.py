"""infernoc's Python side: run a compiled model.so on torch CUDA tensors (see runtime.py)."""
from .runtime import InfernoError, Model, check, load

__all__ = ["InfernoError", "Model", "check", "load"]
