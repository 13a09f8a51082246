"""Exports a torch module for infernoc: torch.export (.pt2) with torch >= 2.8 (the archive format
infernoc reads), else TorchScript tracing (.pt) with `--input` specs taken from the example inputs
(torch 1.x has no torch.export; 2.0 to 2.7 write older archives)."""
import hashlib
import inspect
import re
import zipfile

from .errors import CompileError

# infernoc's dtype names (--input NAME:DIMS:DTYPE) by torch dtype name.
_SPEC_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int64": "i64",
                "int32": "i32", "bool": "bool"}
# TorchScript names a traced input after the Python argument (x.1); infernoc takes these characters
# in a name, and an empty name matches any input.
_NAME = re.compile(r"[A-Za-z0-9_.]+")
# TorchScript renames a class it has already seen in this process (linear.Linear, then
# linear.___torch_mangle_7.Linear): process state, not model content, so the cache key drops it.
_MANGLE = re.compile(rb"[./]___torch_mangle_[0-9]+")


_PT2_MIN_TORCH = (2, 8)


def has_torch_export(torch):
    """Whether this torch writes .pt2 archives infernoc reads."""
    version = re.match(r"([0-9]+)\.([0-9]+)", torch.__version__)
    if version is None or (int(version[1]), int(version[2])) < _PT2_MIN_TORCH:
        return False
    return hasattr(torch, "export") and hasattr(torch.export, "export") and hasattr(torch.export, "save")


def export(torch, module, inputs, directory, dynamic_shapes, strict):
    """Writes the model into `directory`; returns (path, extra infernoc arguments)."""
    if has_torch_export(torch):
        return _export_pt2(torch, module, inputs, directory, dynamic_shapes, strict), []
    if dynamic_shapes is not None:
        raise CompileError(f"dynamic_shapes needs torch.export (torch >= 2.8); torch {torch.__version__} "
                           "has only TorchScript tracing, which records static shapes", stage="export")
    return _trace_pt(torch, module, inputs, directory)


def _export_pt2(torch, module, inputs, directory, dynamic_shapes, strict):
    kwargs, strict_mode = {"dynamic_shapes": dynamic_shapes}, False
    parameters = inspect.signature(torch.export.export).parameters
    if "strict" in parameters:  # None: this torch's default
        if strict is not None:
            kwargs["strict"] = strict
        strict_mode = strict if strict is not None else parameters["strict"].default is True
    try:
        program = torch.export.export(module, inputs, **kwargs)
    except Exception as e:  # torch.export's own message names the construct it cannot trace
        hint = " (strict=False exports with fewer restrictions)" if strict_mode else ""
        raise CompileError(f"torch.export failed: {type(e).__name__}: {e}{hint}", stage="export") from e
    path = directory / "model.pt2"
    torch.export.save(program, str(path))
    return path


def _trace_pt(torch, module, inputs, directory):
    for index, t in enumerate(inputs):
        name = str(t.dtype).removeprefix("torch.")
        if name not in _SPEC_DTYPES:
            raise CompileError(f"example input {index} has dtype {t.dtype}, which infernoc does not take",
                               stage="export")
    try:
        with torch.no_grad():
            traced = torch.jit.trace(module, inputs)
    except Exception as e:
        raise CompileError(f"torch.jit.trace failed: {type(e).__name__}: {e}", stage="export") from e
    path = directory / "model.pt"
    traced.save(str(path))
    names = [v.debugName() for v in traced.graph.inputs()][1:]  # the first is the module itself
    arguments = []
    for t, name in zip(inputs, names):
        name = name if _NAME.fullmatch(name) else ""  # never one infernoc could misparse
        dims = "x".join(str(d) for d in t.shape) or "scalar"
        arguments += ["--input", f"{name}:{dims}:{_SPEC_DTYPES[str(t.dtype).removeprefix('torch.')]}"]
    return path, arguments


def content_digest(path, hasher):
    """Feeds the exported archive's content to `hasher`, so that one model exported twice hashes the
    same: each member's name and bytes, TorchScript's per-process class renaming left out of the
    code and pickles (tensor data is hashed as it is), in an order that does not depend on it.
    TorchScript's source ranges (*.debug_pkl: length-prefixed strings, so the renaming cannot be
    taken out) are left out: they locate Python source lines and change no generated code."""
    members = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.filename.endswith(".debug_pkl"):
                continue
            data, name = archive.read(info), info.filename.encode()
            if b"/data/" not in name:
                data, name = _MANGLE.sub(b"", data), _MANGLE.sub(b"", name)
            members.append((name, hashlib.sha256(data).digest(), len(data)))
    for name, digest, size in sorted(members):
        hasher.update(len(name).to_bytes(8, "little") + name + size.to_bytes(8, "little") + digest)
