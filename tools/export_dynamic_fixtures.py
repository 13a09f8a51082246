#!/usr/bin/env python3
"""Export the dynamic-shape fixtures (issue: one model.so for every size in a declared range).

torch.export's ``dynamic_shapes`` (``Dim("batch", min=1, max=64)``, derived dims such as
``2 * seq``) need torch >= 2.6, which only the GPU machine has, so these are exported there and
committed like the other fixtures (tools/export_fixtures.py, whose path scrubbing and reload check
this script reuses). Tiny fp32 models with fixed seeds, in eval mode:

* ``dyn_mlp``         Linear-GELU-Linear, x [batch, 16], batch 1..64;
* ``dyn_resnet``      ResNet-18's structure (stem, four stages of two basic blocks, strided
                      1x1 downsamples, pool, linear) at an eighth of its widths, x [batch, 3, 32, 32],
                      batch 1..32 (the real ResNet-18's 45 MB of weights is no fixture);
* ``dyn_bert_layer``  a BERT encoder layer, x [batch, seq, 32] and an additive mask
                      [batch, 1, 1, seq], batch 1..8, seq 2..64;
* ``dyn_gpt2``        one GPT-2 block with embeddings and the tied head, ids [batch, seq],
                      batch 1..8, seq 2..31 (below its 32 positions);
* ``dyn_derived``     x [batch, 2 * seq, 8] and y [batch, seq, 8]: a derived dim, seq 2..40.

The first export (torch 2.11, 2026-11-28) wrote the first three (dyn_gpt2 and dyn_derived failed
on the ranges they had then); a second run with the ranges above wrote the other two, committed
without touching the first three.

For each model ``<out>/<model>/`` gets ``model.pt2`` (the default export), ``model_decomposed.pt2``
(after ``run_decompositions()``), and for each of three sizes (every dim at its minimum, in its
middle, at its maximum) ``<size>/input<i>.npy`` and ``<size>/output<i>.npy`` from eager PyTorch.
``<out>/manifest.json`` names each model's dims (name, min, max), each input's shape in them, and
the three sizes. The export uses other sizes than the three (torch.export specializes dims it sees
at 0 or 1).

Usage: ``python3 tools/export_dynamic_fixtures.py [OUT_DIR]`` (default: test/fixtures/dynamic).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import traceback
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

import export_fixtures as fx
import transformer_models
from cnn_fixture_models import randomize_batch_norms

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "test" / "fixtures" / "dynamic"


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


class BasicBlock(nn.Module):
    def __init__(self, n_in: int, n_out: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(n_in, n_out, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(n_out)
        self.conv2 = nn.Conv2d(n_out, n_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(n_out)
        self.down = None
        if stride != 1 or n_in != n_out:
            self.down = nn.Sequential(nn.Conv2d(n_in, n_out, 1, stride=stride, bias=False),
                                      nn.BatchNorm2d(n_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class NarrowResnet18(nn.Module):
    """ResNet-18's layers at widths 8, 16, 32, 64 (torchvision's: 64 to 512)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False)
        self.bn = nn.BatchNorm2d(8)
        widths, blocks, n_in = (8, 16, 32, 64), [], 8
        for stage, width in enumerate(widths):
            for b in range(2):
                blocks.append(BasicBlock(n_in, width, 2 if stage > 0 and b == 0 else 1))
                n_in = width
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(64, 10)
        randomize_batch_norms(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(torch.relu(self.bn(self.stem(x))), 3, stride=2, padding=1)
        x = F.adaptive_avg_pool2d(self.blocks(x), 1)
        return self.fc(torch.flatten(x, 1))


class Derived(nn.Module):
    """Pairs of x's rows summed, plus y: x's second dim is twice y's."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        b, s2, c = x.shape
        return x.reshape(b, s2 // 2, 2, c).sum(2) * 0.5 + torch.tanh(y)


def gpt2_block() -> nn.Module:
    return transformer_models.Gpt2(vocab=64, positions=32, width=32, heads=4, layers=1)


def bert_layer() -> nn.Module:
    return transformer_models.BertLayer(width=32, heads=4, inner=64)


# name -> (factory, dims {name: (min, max)}, per input its shape in dims and ints, dtype, the
# export's sizes {dim: value}).
MODELS = {
    "dyn_mlp": (Mlp, {"batch": (1, 64)}, [(("batch", 16), "f32")], {"batch": 5}),
    "dyn_resnet": (NarrowResnet18, {"batch": (1, 32)}, [(("batch", 3, 32, 32), "f32")], {"batch": 3}),
    "dyn_bert_layer": (bert_layer, {"batch": (1, 8), "seq": (2, 64)},
                       [(("batch", "seq", 32), "f32"), (("batch", 1, 1, "seq"), "mask")],
                       {"batch": 3, "seq": 11}),
    # seq < 32: at 32, the causal mask's slice [:seq] is the whole buffer, a case torch.export
    # guards (seq != 32) and so refuses in the range.
    "dyn_gpt2": (gpt2_block, {"batch": (1, 8), "seq": (2, 31)}, [(("batch", "seq"), "ids")],
                 {"batch": 3, "seq": 11}),
    # seq >= 2: torch.export specializes a dim at 1, and the program it wrote guards x's
    # second dim // 2 != 1.
    "dyn_derived": (Derived, {"batch": (1, 16), "seq": (2, 40)},
                    [(("batch", "2*seq", 8), "f32"), (("batch", "seq", 8), "f32")],
                    {"batch": 3, "seq": 7}),
}


def dim_value(entry, sizes: dict) -> int:
    if isinstance(entry, int):
        return entry
    if entry.startswith("2*"):
        return 2 * sizes[entry[2:]]
    return sizes[entry]


def make_inputs(specs, sizes: dict, gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    inputs = []
    for shape, kind in specs:
        dims = [dim_value(e, sizes) for e in shape]
        if kind == "ids":
            inputs.append(torch.randint(0, 64, dims, generator=gen, dtype=torch.long))
        elif kind == "mask":  # additive: the last quarter of each sequence is padding
            mask = torch.zeros(dims)
            mask[..., dims[-1] - dims[-1] // 4:] = -10000.0
            inputs.append(mask)
        else:
            inputs.append(torch.randn(dims, generator=gen))
    return tuple(inputs)


def dynamic_shapes(specs, dims: dict) -> tuple:
    made = {name: Dim(name, min=lo, max=hi) for name, (lo, hi) in dims.items()}
    shapes = []
    for shape, _ in specs:
        spec = {}
        for d, entry in enumerate(shape):
            if isinstance(entry, str):
                spec[d] = 2 * made[entry[2:]] if entry.startswith("2*") else made[entry]
        shapes.append(spec)
    return tuple(shapes)


def save_arrays(directory: Path, prefix: str, tensors) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for i, t in enumerate(tensors):
        np.save(directory / f"{prefix}{i}.npy", t.detach().contiguous().numpy())


def export(name: str, out: Path) -> dict:
    factory, dims, specs, export_sizes = MODELS[name]
    torch.manual_seed(len(name))
    model = factory().eval()
    gen = torch.Generator().manual_seed(1)
    inputs = make_inputs(specs, export_sizes, gen)
    with torch.no_grad():
        expected = fx.as_tensor_list(model(*inputs))
        ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes(specs, dims))
    model_dir = out / name
    shutil.rmtree(model_dir, ignore_errors=True)
    model_dir.mkdir(parents=True)
    fx.save_exported_program(ep, model_dir / "model.pt2", inputs, expected)
    fx.save_exported_program(ep.run_decompositions(), model_dir / "model_decomposed.pt2", inputs, expected)
    sizes = {
        "min": {d: lo for d, (lo, _) in dims.items()},
        "mid": {d: (lo + hi) // 2 for d, (lo, hi) in dims.items()},
        "max": {d: hi for d, (_, hi) in dims.items()},
    }
    loaded = torch.export.load(str(model_dir / "model.pt2")).module()
    for label, size in sizes.items():
        ins = make_inputs(specs, size, gen)
        with torch.no_grad():
            outs = fx.as_tensor_list(model(*ins))
            fx.assert_same_outputs(loaded(*ins), outs, f"{name} at {label} {size}")
        save_arrays(model_dir / label, "input", ins)
        save_arrays(model_dir / label, "output", outs)
    return {
        "name": name,
        "dims": {d: {"min": lo, "max": hi} for d, (lo, hi) in dims.items()},
        "inputs": [{"name": n, "shape": list(shape), "dtype": "i64" if kind == "ids" else "f32"}
                   for n, (shape, kind) in zip(ep.graph_signature.user_inputs, specs)],
        "sizes": sizes,
        "range_constraints": {str(k): str(v) for k, v in ep.range_constraints.items()},
        "targets": fx.call_targets(ep),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default=str(DEFAULT_OUT))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"torch {torch.__version__}")
    models, failed = [], 0
    for name in MODELS:
        try:
            models.append(export(name, out))
            print(f"== {name}: ok {models[-1]['range_constraints']}")
        except Exception:  # one model's failure leaves the others
            failed += 1
            print(f"== {name}: FAILED\n{traceback.format_exc()}")
    (out / "manifest.json").write_text(json.dumps({"torch": torch.__version__, "models": models}, indent=2) + "\n")
    leaks = [f"{p}: {hit}" for p in out.rglob("*") if p.is_file() for hit in fx.find_absolute_paths(p.read_bytes())]
    for leak in leaks:
        print("absolute path left:", leak)
    return 1 if failed or leaks else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
