"""infernoc's Python side: compile a torch module (compiler.py) and run a compiled model.so on torch
CUDA tensors (runtime.py)."""
import pkgutil

# A build tree's native extension lives in <build>/python/inferno/ without the .py files: with that
# directory on sys.path too, it joins this package.
__path__ = pkgutil.extend_path(__path__, __name__)

from .compiler import compile
from .errors import CompileError
from .runtime import InfernoError, Model, check, load

__all__ = ["CompileError", "InfernoError", "Model", "check", "compile", "load"]
