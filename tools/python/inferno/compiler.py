"""inferno.compile: a torch module in, a loaded model.so out.

    fast = inferno.compile(module, (x,), precision="fp16")    # x: an example input
    y = fast(x.cuda())

Exports the module (export.py), runs infernoc on it with an argument list (never a shell), caches
the result (compile_cache.py) and loads it with inferno.load. infernoc is $INFERNOC, else the one in
the installed prefix's bin/ (beside lib/python/inferno), else the first on PATH.
"""
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import export as _export
from . import recent as _recent
from .compile_cache import Cache, default_dir
from .errors import CompileError

# The options compile() writes itself, or that make infernoc write something other than a library.
_MANAGED = {"model", "o", "output", "emit", "input", "data", "reference", "save_outputs", "precision", "help",
            "version", "keep_build"}
_FLAG = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CACHE_FORMAT = b"inferno-python-cache 1\0"


def find_infernoc():
    """The infernoc executable compile() runs (see the module's docstring)."""
    named = os.environ.get("INFERNOC")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise CompileError(f"INFERNOC={named} is not an executable file", stage="infernoc")
        return named
    for prefix in list(Path(__file__).resolve().parents)[1:5]:  # <prefix>/lib[/arch]/python/inferno
        candidate = prefix / "bin" / "infernoc"
        if os.access(candidate, os.X_OK) and candidate.is_file():
            return str(candidate)
    found = shutil.which("infernoc")
    if found is None:
        raise CompileError("cannot find infernoc: set $INFERNOC, or put the install prefix's bin/ on PATH",
                           stage="infernoc")
    return found


def _stamp(path):
    st = os.stat(path)
    return (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _version_output(stamp, flag="--version"):
    """What `<program> --version` prints, once per program file (path, size, mtime)."""
    try:
        done = subprocess.run([stamp[0], flag], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e})"
    return (done.stdout + done.stderr).strip()


def _nvcc(flags):
    """The nvcc infernoc will use, as infernoc finds it (--nvcc, $CUDACXX, $CUDA_HOME, the default
    install, PATH), or None."""
    candidates = [flags.get("nvcc"), os.environ.get("CUDACXX")]
    if os.environ.get("CUDA_HOME"):
        candidates.append(os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc"))
    candidates += ["/usr/local/cuda/bin/nvcc", shutil.which("nvcc")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def _local_archs(torch):
    """What infernoc targets without --arch: the visible GPUs' archs (sm_90 without one)."""
    try:
        if torch.cuda.is_available():
            return sorted({torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())})
    except Exception:  # a broken driver: infernoc then sees no GPU either
        pass
    return "no GPU"


def flag_arguments(flags):
    """infernoc arguments from compile()'s keyword arguments: io_precision="compute" ->
    --io-precision compute, full_constants=True -> --full-constants, O=0 -> -O 0, a list repeats
    its values after one option; False and None leave the flag out."""
    arguments = []
    for name in sorted(flags):
        value = flags[name]
        if not _FLAG.fullmatch(name):
            raise TypeError(f"compile() got an unexpected keyword argument {name!r}")
        if name in _MANAGED:
            raise TypeError(f"compile() sets infernoc's {name} itself")
        option = ("-" if len(name) == 1 else "--") + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            arguments.append(option)
        elif isinstance(value, (list, tuple)):
            arguments += [option] + [str(v) for v in value]
        else:
            arguments += [option, str(value)]
    return arguments


def _cache_key(exported, arguments, infernoc, nvcc, archs):
    h = hashlib.sha256(_CACHE_FORMAT)
    _export.content_digest(exported, h)
    stamp = _stamp(infernoc)
    facts = {"arguments": arguments, "infernoc": stamp, "infernoc_version": _version_output(stamp),
             "nvcc": _version_output(_stamp(nvcc)) if nvcc else None, "archs": repr(archs)}
    h.update(json.dumps(facts, sort_keys=True).encode())
    return h.hexdigest()


def _run_infernoc(infernoc, model, arguments, output):
    command = [infernoc, str(model), *arguments, "-o", str(output)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as e:
        raise CompileError(f"cannot run {infernoc}: {e}", stage="infernoc") from e
    if done.returncode != 0 or not output.is_file():
        # infernoc's message: from its "error:" line on (the lines before are progress).
        lines = done.stderr.splitlines()
        first = next((i for i, line in enumerate(lines) if line.startswith("infernoc: error:")),
                     max(len(lines) - 20, 0))
        detail = "\n".join(lines[first:]) or "(no message)"
        raise CompileError(f"infernoc exited with code {done.returncode}:\n{detail}", stage="infernoc",
                           returncode=done.returncode, stderr=done.stderr)


def compile(module, example_inputs, *, precision="fp32", dynamic_shapes=None, cache_dir=None, strict=None,
            load=True, device=None, use_cuda_graph=True, **flags):
    """Compiles `module` for the shapes and dtypes of `example_inputs` (a tensor or a tuple of them).

    Returns a loaded inferno.Model, callable like the module on CUDA tensors (one tensor, or a tuple
    for several outputs), or with load=False the compiled library's path. `precision` is infernoc's
    --precision; other keyword arguments are infernoc flags (arch="sm_90", io_precision="compute",
    weights="external", ...). `dynamic_shapes` and `strict` (None: torch's default) go to
    torch.export (torch >= 2.8); with older torch the module is traced with torch.jit.trace and
    shapes are static. Results are cached in `cache_dir` (default: $INFERNO_PYTHON_CACHE, else
    $XDG_CACHE_HOME/inferno-python), keyed by the exported model, the flags, the infernoc and nvcc
    versions and the target GPUs; a module compiled before in this process and unchanged since is
    not exported again (recent.py). Raises CompileError when export or infernoc fails."""
    import torch

    inputs = (example_inputs,) if isinstance(example_inputs, torch.Tensor) else tuple(example_inputs)
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"compile() takes a torch.nn.Module, got {type(module).__name__}")
    if any(not isinstance(t, torch.Tensor) for t in inputs):
        raise TypeError("example_inputs must be a tensor or a tuple of tensors")
    infernoc = find_infernoc()
    cache = Cache(cache_dir if cache_dir is not None else default_dir())
    nvcc, archs = _nvcc(flags), flags.get("arch") or _local_archs(torch)
    arguments = ["--precision", str(precision)] + flag_arguments(flags)
    # Everything but the module and the inputs that the cache key depends on (recent.py).
    settings = (tuple(arguments), repr(dynamic_shapes), strict, _stamp(infernoc), nvcc and _stamp(nvcc),
                repr(archs), str(Path(cache.root).resolve()))
    memo = _recent.facts(module, inputs, settings)  # before export, which must not change it
    known = _recent.recall(module, memo)
    library = cache.lookup(known) if known is not None else None
    if library is None:
        with tempfile.TemporaryDirectory(prefix="inferno-export-") as scratch:
            exported, input_arguments = _export.export(torch, module, inputs, Path(scratch), dynamic_shapes, strict)
            arguments = input_arguments + arguments
            key = _cache_key(exported, arguments, infernoc, nvcc, archs)
            library = cache.lookup(key)
            if library is None:
                build = cache.new_build_dir()
                try:
                    _run_infernoc(infernoc, exported, arguments, build / "model.so")
                    library = cache.store(key, build)
                finally:
                    shutil.rmtree(build, ignore_errors=True)  # gone already when stored
        _recent.remember(module, memo, key)
    if not load:
        return str(library)
    from .runtime import load as load_library

    return load_library(library, device, use_cuda_graph)
