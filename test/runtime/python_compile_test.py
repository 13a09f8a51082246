"""inferno.compile without a GPU (torch 1.13: the torch.jit.trace fallback): modules exported and
compiled to a model.so that the runtime validates, the cache (a hit runs no infernoc, a changed flag
misses, a damaged entry is rebuilt), loading (the runtime's no-device error) and the errors of
export and infernoc. INFERNOC_REAL names the infernoc under test; a wrapper around it counts runs."""
import os
import stat
import sys
import tempfile
from pathlib import Path

try:
    import torch
except ImportError:
    print("SKIPPED: no torch")
    sys.exit(0)

import inferno

scratch = Path(tempfile.mkdtemp(prefix="inferno-compile-test-"))
runs = scratch / "runs.log"
wrapper = scratch / "infernoc"
wrapper.write_text(f"#!{sys.executable}\nimport os, sys\n"
                   f"with open({str(runs)!r}, 'a') as f:\n    f.write(' '.join(sys.argv[1:]) + '\\n')\n"
                   f"os.execv({os.environ['INFERNOC_REAL']!r}, [{os.environ['INFERNOC_REAL']!r}] + sys.argv[1:])\n")
wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
os.environ["INFERNOC"] = str(wrapper)
cache = scratch / "cache"


def compiles():
    """The command lines of the compiles the wrapper saw (compile() also asks infernoc --version,
    for the cache key)."""
    lines = runs.read_text().splitlines() if runs.exists() else []
    return [line for line in lines if line != "--version"]


def infernoc_runs():
    return len(compiles())


def expect(fn, error, *texts):
    try:
        fn()
    except error as e:
        for text in texts:
            assert text in str(e), f"{text!r} not in {str(e)!r}"
        return e
    raise AssertionError(f"expected {error.__name__}: {texts}")


torch.manual_seed(0)
mlp = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
x = torch.randn(2, 8)

# Compile only: the library is written into the cache (the runtime's checks of it come after the
# truncation below: a library this process maps must not be truncated under it).
first = inferno.compile(mlp, x, cache_dir=cache, load=False)
assert infernoc_runs() == 1 and Path(first).is_file() and Path(first).is_relative_to(cache), first
assert "--input input.1:2x8:f32 --precision fp32" in compiles()[0], compiles()

# A hit: same module and flags (traced again, so TorchScript renames its classes): infernoc not run.
# Compiled again unchanged in this process, the module is not even traced (recent.py).
traces = []
real_export = inferno.compiler._export.export
inferno.compiler._export.export = lambda *args: traces.append(1) or real_export(*args)
assert inferno.compile(mlp, (torch.randn(2, 8),), cache_dir=cache, load=False) == first
assert infernoc_runs() == 1 and not traces
other = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
other.load_state_dict(mlp.state_dict())  # another module, the same content: traced, then a hit
assert inferno.compile(other, x, cache_dir=cache, load=False) == first
assert infernoc_runs() == 1 and len(traces) == 1
with torch.no_grad():  # an in-place update: traced again, compiled again
    other[0].bias.add_(1.0)
changed = inferno.compile(other, x, cache_dir=cache, load=False)
assert changed != first and infernoc_runs() == 2 and len(traces) == 2
other[0].bias.data = mlp[0].bias.detach().clone()  # back to mlp's values: remembered, no trace
assert inferno.compile(other, x, cache_dir=cache, load=False) == first and len(traces) == 2
other.note = "any plain attribute"  # forward may read it: traced again (the same graph: a hit)
assert inferno.compile(other, x, cache_dir=cache, load=False) == first and len(traces) == 3
inferno.compiler._export.export = real_export
assert infernoc_runs() == 2
# Other weights, another flag value, other shapes: misses.
tf32 = inferno.compile(mlp, x, precision="tf32", cache_dir=cache, load=False)
assert infernoc_runs() == 3 and tf32 != first
inferno.check(tf32, 90)
inferno.compile(mlp, torch.randn(3, 8), cache_dir=cache, load=False)
assert infernoc_runs() == 4
# A truncated library is never used: the entry is rebuilt (a new file, not the old one rewritten).
size = Path(first).stat().st_size
with open(first, "r+b") as f:
    f.truncate(size // 2)
assert inferno.compile(mlp, x, cache_dir=cache, load=False) == first
assert infernoc_runs() == 5 and Path(first).stat().st_size == size
inferno.check(first, 90)
# So is an entry whose manifest is damaged.
(Path(first).parent / "entry.json").write_text("{")
assert inferno.compile(mlp, x, cache_dir=cache, load=False) == first and infernoc_runs() == 6


# A small CNN with two inputs; loading it needs a GPU, which the runtime says is missing.
class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, image, scale):
        y = torch.relu(self.conv(image)).mean(dim=(2, 3))
        return self.fc(y) * scale, y


cnn = SmallCnn().eval()
cnn_inputs = (torch.randn(1, 3, 16, 16), torch.randn(1, 5))
expect(lambda: inferno.compile(cnn, cnn_inputs, cache_dir=cache), inferno.InfernoError, "no_device", "no NVIDIA GPU")
assert infernoc_runs() == 7
assert "--input image:1x3x16x16:f32 --input scale:1x5:f32" in compiles()[-1], compiles()
inferno.check(inferno.compile(cnn, cnn_inputs, cache_dir=cache, load=False), 90)
assert infernoc_runs() == 7


# Errors: an op infernoc does not compile (exit code 2 and its message), export failures.
class Sorts(torch.nn.Module):
    def forward(self, v):
        return torch.sort(v).values


e = expect(lambda: inferno.compile(Sorts(), torch.randn(5), cache_dir=cache), inferno.CompileError,
           "infernoc exited with code 2", "aten::sort")
assert e.returncode == 2 and e.stage == "infernoc" and "unsupported op" in e.stderr, (e.returncode, e.stderr)
assert not list(cache.glob(".build-*")), "a failed build left its directory behind"


class ReturnsText(torch.nn.Module):
    def forward(self, v):
        return "text"


e = expect(lambda: inferno.compile(ReturnsText(), x, cache_dir=cache), inferno.CompileError, "torch.jit.trace failed")
assert e.stage == "export" and e.returncode is None
expect(lambda: inferno.compile(mlp, x, cache_dir=cache, dynamic_shapes={"input": {0: None}}), inferno.CompileError,
       "dynamic_shapes needs torch.export")
expect(lambda: inferno.compile(mlp, x.to(torch.complex64), cache_dir=cache), inferno.CompileError, "complex64")
expect(lambda: inferno.compile(mlp, x, cache_dir=cache, emit="ir"), TypeError, "sets infernoc's emit itself")
expect(lambda: inferno.compile(lambda v: v, x, cache_dir=cache), TypeError, "torch.nn.Module")
os.environ["INFERNOC"] = str(scratch / "missing")
expect(lambda: inferno.compile(mlp, x, cache_dir=cache), inferno.CompileError, "is not an executable file")
print("python compile: ok")
