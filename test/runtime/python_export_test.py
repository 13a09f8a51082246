"""inferno.compile's parts without torch or infernoc: which exporter a torch version gets and how
torch.export's failures read (a stand-in torch module), keyword arguments as infernoc flags, the
archive digest the cache key uses, and the cache's refusal of damaged or forged entries."""
import hashlib
import inspect
import json
import tempfile
import types
import zipfile
from pathlib import Path

from inferno import compile_cache, compiler, export
from inferno.errors import CompileError

scratch = Path(tempfile.mkdtemp(prefix="inferno-export-test-"))


def expect(fn, error, *texts):
    try:
        fn()
    except error as e:
        for text in texts:
            assert text in str(e), f"{text!r} not in {str(e)!r}"
        return e
    raise AssertionError(f"expected {error.__name__}: {texts}")


def fake_torch(version, export_fn, with_export=True):
    torch = types.SimpleNamespace(__version__=version)
    if with_export:
        def save(program, path):
            Path(path).write_bytes(b"pt2:" + program)
        torch.export = types.SimpleNamespace(export=export_fn, save=save)
    return torch


def export_strict(module, args, dynamic_shapes=None, strict=True):
    if module == "bad":
        raise RuntimeError("Dynamic control flow is not supported: if x.sum() > 0")
    return f"{module}:{args}:{dynamic_shapes}:{strict}".encode()


def export_no_strict_flag(module, args, dynamic_shapes=None):
    raise RuntimeError("unsupported construct")


# torch.export only where it writes the archives infernoc reads (torch >= 2.8).
assert not export.has_torch_export(fake_torch("1.13.0", None, with_export=False))
assert not export.has_torch_export(fake_torch("2.5.1+cu124", export_strict))
assert export.has_torch_export(fake_torch("2.8.0+cu128", export_strict))
assert export.has_torch_export(fake_torch("2.10.0", export_strict))
assert not export.has_torch_export(fake_torch("2.9.0", None, with_export=False))

torch = fake_torch("2.9.1", export_strict)
path, arguments = export.export(torch, "m", ("x",), scratch, {"x": {0: "batch"}}, None)
assert arguments == [] and path == scratch / "model.pt2"
assert path.read_bytes() == b"pt2:m:('x',):{'x': {0: 'batch'}}:True", path.read_bytes()  # torch's default
export.export(torch, "m", ("x",), scratch, None, False)
assert path.read_bytes().endswith(b":False")
e = expect(lambda: export.export(torch, "bad", (), scratch, None, None), CompileError,
           "torch.export failed: RuntimeError: Dynamic control flow is not supported: if x.sum() > 0",
           "strict=False")
assert e.stage == "export" and e.returncode is None
e = expect(lambda: export.export(torch, "bad", (), scratch, None, False), CompileError, "torch.export failed")
assert "strict=False" not in str(e)
older = fake_torch("2.8.0", export_no_strict_flag)
assert "strict" not in inspect.signature(older.export.export).parameters
assert "strict=False" not in str(expect(lambda: export.export(older, "m", (), scratch, None, None), CompileError,
                                        "unsupported construct"))

# Keyword arguments as infernoc's flags.
assert compiler.flag_arguments({"io_precision": "compute", "arch": "sm_80,sm_90", "full_constants": True,
                                "tf32": False, "nvcc": None, "O": 0, "specialize": ["s0=1,16", "s1=2"]}) == [
    "-O", "0", "--arch", "sm_80,sm_90", "--full-constants", "--io-precision", "compute",
    "--specialize", "s0=1,16", "s1=2"]
for reserved in ("emit", "output", "o", "input", "data", "reference", "precision", "keep_build"):
    expect(lambda: compiler.flag_arguments({reserved: "x"}), TypeError, "itself")
expect(lambda: compiler.flag_arguments({"bad-name": 1}), TypeError, "unexpected keyword argument")


# The digest of an exported archive: TorchScript's class renaming and source ranges do not count;
# tensor bytes, code and member names do.
def archive(name, members):
    path = scratch / name
    with zipfile.ZipFile(path, "w") as z:
        for member, data in members:
            z.writestr(member, data)
    return path


def digest(path):
    h = hashlib.sha256()
    export.content_digest(path, h)
    return h.hexdigest()


first = archive("first.pt", [("model/data.pkl", b"c__torch__.linear\nLinear\n"),
                             ("model/code/__torch__/linear.py", b"class Linear: pass"),
                             ("model/code/__torch__/linear.py.debug_pkl", b"\x05line 3"),
                             ("model/data/0", b"\x01\x02___torch_mangle_3")])
again = archive("again.pt", [("model/code/__torch__/linear/___torch_mangle_7.py", b"class Linear: pass"),
                             ("model/code/__torch__/linear/___torch_mangle_7.py.debug_pkl", b"\x06line 30"),
                             ("model/data.pkl", b"c__torch__.linear.___torch_mangle_7\nLinear\n"),
                             ("model/data/0", b"\x01\x02___torch_mangle_3")])
assert digest(first) == digest(again)
other_data = archive("data.pt", [("model/data.pkl", b"c__torch__.linear\nLinear\n"),
                                 ("model/code/__torch__/linear.py", b"class Linear: pass"),
                                 ("model/data/0", b"\x01\x02___torch_mangle_4")])
other_code = archive("code.pt", [("model/data.pkl", b"c__torch__.linear\nLinear\n"),
                                 ("model/code/__torch__/linear.py", b"class Linear: pass  "),
                                 ("model/data/0", b"\x01\x02___torch_mangle_3")])
assert len({digest(first), digest(other_data), digest(other_code)}) == 3

# The cache: a stored entry is found; anything that does not match its manifest is a miss.
cache = compile_cache.Cache(scratch / "cache")
key = "ab" + "0" * 62
assert cache.lookup(key) is None
build = cache.new_build_dir()
(build / "model.so").write_bytes(b"\x7fELF library")
(build / "model.weights").write_bytes(b"weights")
library = cache.store(key, build)
assert cache.lookup(key) == library and library.read_bytes() == b"\x7fELF library" and not build.exists()
entry = library.parent / "entry.json"
manifest = json.loads(entry.read_text())
assert set(manifest["files"]) == {"model.so", "model.weights"} and manifest["key"] == key


def forged(change):
    m = json.loads(json.dumps(manifest))
    change(m)
    entry.write_text(json.dumps(m))
    return cache.lookup(key)


(library.parent / "model.weights").write_bytes(b"weightz")  # same size, other bytes
assert cache.lookup(key) is None
(library.parent / "model.weights").write_bytes(b"weights")
assert cache.lookup(key) == library
assert forged(lambda m: m.update(key="cd" + "0" * 62)) is None
assert forged(lambda m: m.update(format=2)) is None
assert forged(lambda m: m["files"].pop("model.so")) is None
assert forged(lambda m: m["files"].update({"../../escape": m["files"]["model.so"]})) is None
assert forged(lambda m: m["files"]["model.so"].update(size="12")) is None
assert forged(lambda m: m.update(files=[])) is None
entry.write_text(json.dumps(manifest) + " " * (1 << 16))  # over the manifest's size bound
assert cache.lookup(key) is None
# A new build replaces the damaged entry.
build = cache.new_build_dir()
(build / "model.so").write_bytes(b"\x7fELF rebuilt")
assert cache.store(key, build) == library and cache.lookup(key) == library
assert library.read_bytes() == b"\x7fELF rebuilt" and not (library.parent / "model.weights").exists()
print("python export and cache: ok")
