#!/usr/bin/env python3
"""Exports the zoo: torchvision models and the transformers of tools/transformer_models.py with
random weights, traced to TorchScript, with inputs and PyTorch's outputs beside each, for the
`zoo` tests (test/zoo/).

Run with the distribution's interpreter, ``/usr/bin/python3``, which has ``python3-torch`` and
``python3-torchvision`` (torch 1.13, torchvision 0.14); the ``python3`` first on PATH may be another
interpreter without them. The models are tens of MB: write them into the build tree, never the
source tree.

Each model goes to ``<out>/<name>/``: ``model.pt`` (traced in eval mode), ``input<i>.npy`` (f32
images and hidden states, int64 token ids and attention masks) and
PyTorch's ``output<i>.npy`` (f32; a dict's values in insertion order, as infernoc orders them).
Everything is seeded per model (from its name), so a re-export writes the same files. BatchNorm
layers get random running statistics and affine parameters (mean N(0, 0.1), var U(0.5, 2),
weight U(0.5, 1.5), bias N(0, 0.1)), so BN folding is exercised with statistics that matter.

Usage: ``/usr/bin/python3 tools/export_zoo.py --out DIR [--only NAME[,NAME...]] [--if-changed]
[--pt2] [--list]``. ``--pt2`` also writes ``model.pt2`` (``torch.export``, torch 2.8 or newer), so
that tools/bench/compile_times.py can time the LibTorch-free path too. ``--if-changed`` skips a model whose directory holds a stamp of this script's text and
the torch and torchvision versions that match (a re-run of the tests re-exports nothing). Exit 77
(ctest's skip code in test/zoo) when torch or torchvision cannot be imported.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import time
import zlib
from pathlib import Path
from typing import Callable

try:
    import numpy as np
    import torch
    import torchvision
    from torch import nn

    import transformer_models
except ImportError as e:  # not this interpreter's packages: the tests are skipped, not failed
    print(f"export_zoo: {e}; run with /usr/bin/python3 (python3-torch, python3-torchvision)")
    sys.exit(77)

SKIP = 77


class SmallVgg(nn.Module):
    """A VGG-style classifier: conv/BN/relu stacks, max pooling, a two-layer head with dropout."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        channels = 3
        for width, convs in ((16, 1), (32, 2), (64, 2)):
            for _ in range(convs):
                layers += [nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width)]
                layers.append(nn.ReLU(inplace=True))
                channels = width
            layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(
            nn.Linear(channels * 4, 128), nn.ReLU(True), nn.Dropout(0.5), nn.Linear(128, num_classes)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


class InPlaceViews(nn.Module):
    """Writes through slices and selects, as traced models hold them (Swin's shifted-window mask,
    `x[i] = ...`): copy_ into a select, fill_ and relu_ into slices, zero_ into a slice of a
    select; each must reach the tensor sliced. A roll, an in-place op on a transpose whose base
    is not read again and one on a chunk's piece read beside the other piece complete it."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2.0
        y[1] = x[0]
        y[:, 1:3] = 7.0
        y[2, :, 1:5:2].zero_()
        y[:, :, 4:].relu_()
        z = torch.roll(y, shifts=(1, -3), dims=(0, 2)).transpose(1, 2)
        z.sigmoid_()
        p, q = z.chunk(2, dim=1)
        p.mul_(3.0)  # the other piece, q, is not written
        return p + q


class StaleView(nn.Module):
    """A view taken before an in-place write and read after it: refused (it would keep the old
    values)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2.0
        v = y[:, :2]
        y.relu_()
        return v + 1.0


class WriteThroughTranspose(nn.Module):
    """An in-place write through a transpose into a tensor read afterwards: refused."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2.0
        y.transpose(1, 2).relu_()
        return y


def tv(name: str, **kwargs) -> Callable[[], nn.Module]:
    """A torchvision model by builder name, untrained (weights=None)."""
    return lambda: getattr(torchvision.models, name)(weights=None, **kwargs)


def segmentation(name: str) -> Callable[[], nn.Module]:
    return lambda: getattr(torchvision.models.segmentation, name)(
        weights=None, weights_backbone=None, num_classes=5
    )


def video(name: str) -> Callable[[], nn.Module]:
    return lambda: getattr(torchvision.models.video, name)(weights=None)


def image(size: int) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(1, 3, size, size),)


def clip(frames: int, size: int) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(1, 3, frames, size, size),)


def tokens(batch: int, seq: int, with_mask: bool = False) -> Callable[[], tuple[torch.Tensor, ...]]:
    def make() -> tuple[torch.Tensor, ...]:
        ids = transformer_models.token_ids(batch, seq)
        return (ids, transformer_models.padding_mask(batch, seq)) if with_mask else (ids,)

    return make


def hidden(batch: int, seq: int, width: int) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(batch, seq, width),)


# name -> (builder, inputs). Images are 64x64 to keep the CPU reference fast (resnet18 and
# MaxViT, whose windows need it, at 224), the video clip 4 frames of 32x32; the transformers are small (width 64, 2 layers) with
# sequences that are no multiple of the attention kernel's tiles.
MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "resnet18": (tv("resnet18"), image(64)),
    "resnet18_224": (tv("resnet18"), image(224)),
    "resnet50": (tv("resnet50"), image(64)),
    "mobilenet_v2": (tv("mobilenet_v2"), image(64)),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), image(64)),
    "efficientnet_b0": (tv("efficientnet_b0"), image(64)),
    "convnext_tiny": (tv("convnext_tiny"), image(64)),
    "shufflenet_v2_x0_5": (tv("shufflenet_v2_x0_5"), image(64)),
    "densenet121": (tv("densenet121"), image(64)),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), image(64)),
    "regnet_y_400mf": (tv("regnet_y_400mf"), image(64)),
    "squeezenet1_1": (tv("squeezenet1_1"), image(64)),
    "vgg_small": (SmallVgg, image(64)),
    "lraspp_mobilenet_v3_large": (segmentation("lraspp_mobilenet_v3_large"), image(64)),
    "swin_t": (tv("swin_t"), image(64)),
    "maxvit_t": (tv("maxvit_t"), image(224)),
    "r3d_18": (video("r3d_18"), clip(4, 32)),
    "inplace_views": (InPlaceViews, hidden(3, 4, 8)),
    "stale_view": (StaleView, hidden(3, 4, 8)),
    "write_through_transpose": (WriteThroughTranspose, hidden(3, 4, 8)),
    "gpt2": (transformer_models.Gpt2, tokens(1, 40)),
    "bert": (transformer_models.Bert, tokens(2, 24, with_mask=True)),
    "llama_block": (transformer_models.LlamaBlock, hidden(2, 33, 64)),
    "transformer_encoder": (transformer_models.transformer_encoder, hidden(2, 17, 64)),
    "vit": (transformer_models.vit, image(32)),
}


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def randomize_batch_norms(model: nn.Module) -> None:
    """Statistics and affine parameters away from PyTorch's 0/1 defaults (see the module doc)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                c = m.num_features
                m.running_mean.copy_(torch.randn(c) * 0.1)
                m.running_var.copy_(torch.rand(c) * 1.5 + 0.5)
                if m.affine:
                    m.weight.copy_(torch.rand(c) + 0.5)
                    m.bias.copy_(torch.randn(c) * 0.1)


def randomize_norms(model: nn.Module) -> None:
    """LayerNorm and RMSNorm weights and biases away from 1 and 0, so that every norm has its own
    parameters (equal constants would be merged, hiding a wrong operand); a Linear initialized to
    zeros gets random weights (a zero output would match anything)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
                m.weight.copy_(torch.rand(m.weight.shape) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape) * 0.1)
            elif isinstance(m, transformer_models.RmsNorm):
                m.weight.copy_(torch.rand(m.weight.shape) + 0.5)
            elif isinstance(m, nn.Linear) and not m.weight.any():  # torchvision's ViT head is zeros
                m.weight.normal_(0.0, m.in_features**-0.5)


def outputs_of(result) -> list[torch.Tensor]:
    if isinstance(result, dict):
        return list(result.values())
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def stamp() -> str:
    """What an exported model depends on: these scripts and the torch it ran with."""
    here = Path(__file__).resolve().parent
    sources = [Path(__file__).resolve(), here / "transformer_models.py"]
    script = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    return f"{script} torch {torch.__version__} torchvision {torchvision.__version__}\n"


def export(name: str, out: Path, pt2: bool = False) -> None:
    make, make_inputs = MODELS[name]
    torch.manual_seed(seed_of(name))
    model = make().eval()
    randomize_batch_norms(model)
    randomize_norms(model)
    inputs = make_inputs()
    with torch.no_grad():
        expected = [t.clone() for t in outputs_of(model(*inputs))]
        traced = torch.jit.trace(model, inputs, strict=False)  # strict=False: dict outputs
    model_dir = out / name
    shutil.rmtree(model_dir, ignore_errors=True)
    model_dir.mkdir(parents=True)
    traced.save(str(model_dir / "model.pt"))
    with torch.no_grad():  # the file, reloaded, must compute what the model did
        again = outputs_of(torch.jit.load(str(model_dir / "model.pt"))(*inputs))
    for i, (a, e) in enumerate(zip(again, expected)):
        # The reloaded trace may fuse and reorder float sums (its profiling executor), so the
        # check is a relative L2 error far below the tests' 1e-4, not bit equality.
        error = float((a.double() - e.double()).norm() / e.double().norm().clamp_min(1e-30))
        if a.shape != e.shape or not error <= 1e-6:
            raise RuntimeError(f"{name}: output {i} of the saved trace differs from the model's "
                               f"(relative L2 error {error:.2e})")
    if pt2:  # optional: a model torch.export refuses keeps its TorchScript file only
        try:
            program = torch.export.export(model, inputs, strict=False)
            torch.export.save(program, str(model_dir / "model.pt2"))
        except Exception as e:  # noqa: BLE001 (any export failure)
            print(f"{name}: no model.pt2: {type(e).__name__}: {str(e)[:200]}")
    for i, t in enumerate(inputs):  # token ids stay int64
        np.save(model_dir / f"input{i}.npy", t.numpy())
    for i, t in enumerate(expected):
        np.save(model_dir / f"output{i}.npy", t.float().numpy())
    (model_dir / "stamp").write_text(stamp())  # last: a complete export


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the directory to write (in the build tree)")
    parser.add_argument("--only", default="", help="comma-separated model names (default: all)")
    parser.add_argument("--if-changed", action="store_true", help="skip up-to-date models")
    parser.add_argument("--pt2", action="store_true", help="also write model.pt2 (torch.export)")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    args = parser.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return 0
    if args.out is None:
        parser.error("--out DIR is required")
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; --list names them")
    torch.set_num_threads(1)  # CI shares two cores between tests
    for name in names:
        stamp_file = args.out / name / "stamp"
        if (args.if_changed and stamp_file.is_file() and stamp_file.read_text() == stamp() and
                (not args.pt2 or (args.out / name / "model.pt2").is_file())):
            print(f"{name}: up to date")
            continue
        start = time.monotonic()
        export(name, args.out, args.pt2)
        print(f"{name}: exported in {time.monotonic() - start:.1f} s")
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
