#!/usr/bin/env python3
"""Exports the CNN zoo: torchvision models with random weights, traced to TorchScript, with an
input and PyTorch's outputs beside each, for the `zoo` tests (test/zoo/).

Run with the distribution's interpreter, ``/usr/bin/python3``, which has ``python3-torch`` and
``python3-torchvision`` (torch 1.13, torchvision 0.14); the ``python3`` first on PATH may be another
interpreter without them. The models are tens of MB: write them into the build tree, never the
source tree.

Each model goes to ``<out>/<name>/``: ``model.pt`` (traced in eval mode), ``input0.npy`` and
PyTorch's ``output<i>.npy`` (f32; a dict's values in insertion order, as infernoc orders them).
Everything is seeded per model (from its name), so a re-export writes the same files. BatchNorm
layers get random running statistics and affine parameters (mean N(0, 0.1), var U(0.5, 2),
weight U(0.5, 1.5), bias N(0, 0.1)), so BN folding is exercised with statistics that matter.

Usage: ``/usr/bin/python3 tools/export_zoo.py --out DIR [--only NAME[,NAME...]] [--if-changed]
[--list]``. ``--if-changed`` skips a model whose directory holds a stamp of this script's text and
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


def tv(name: str, **kwargs) -> Callable[[], nn.Module]:
    """A torchvision model by builder name, untrained (weights=None)."""
    return lambda: getattr(torchvision.models, name)(weights=None, **kwargs)


def segmentation(name: str) -> Callable[[], nn.Module]:
    return lambda: getattr(torchvision.models.segmentation, name)(
        weights=None, weights_backbone=None, num_classes=5
    )


# name -> (builder, input size H = W). 64x64 keeps the CPU reference fast; resnet18 also at 224.
MODELS: dict[str, tuple[Callable[[], nn.Module], int]] = {
    "resnet18": (tv("resnet18"), 64),
    "resnet18_224": (tv("resnet18"), 224),
    "resnet50": (tv("resnet50"), 64),
    "mobilenet_v2": (tv("mobilenet_v2"), 64),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), 64),
    "efficientnet_b0": (tv("efficientnet_b0"), 64),
    "convnext_tiny": (tv("convnext_tiny"), 64),
    "shufflenet_v2_x0_5": (tv("shufflenet_v2_x0_5"), 64),
    "densenet121": (tv("densenet121"), 64),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), 64),
    "regnet_y_400mf": (tv("regnet_y_400mf"), 64),
    "squeezenet1_1": (tv("squeezenet1_1"), 64),
    "vgg_small": (SmallVgg, 64),
    "lraspp_mobilenet_v3_large": (segmentation("lraspp_mobilenet_v3_large"), 64),
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


def outputs_of(result) -> list[torch.Tensor]:
    if isinstance(result, dict):
        return list(result.values())
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def stamp() -> str:
    """What an exported model depends on: this script and the torch it ran with."""
    script = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return f"{script} torch {torch.__version__} torchvision {torchvision.__version__}\n"


def export(name: str, out: Path) -> None:
    make, size = MODELS[name]
    torch.manual_seed(seed_of(name))
    model = make().eval()
    randomize_batch_norms(model)
    x = torch.randn(1, 3, size, size)
    with torch.no_grad():
        expected = [t.clone() for t in outputs_of(model(x))]
        traced = torch.jit.trace(model, (x,), strict=False)  # strict=False: dict outputs
    model_dir = out / name
    shutil.rmtree(model_dir, ignore_errors=True)
    model_dir.mkdir(parents=True)
    traced.save(str(model_dir / "model.pt"))
    with torch.no_grad():  # the file, reloaded, must compute what the model did
        again = outputs_of(torch.jit.load(str(model_dir / "model.pt"))(x))
    for i, (a, e) in enumerate(zip(again, expected)):
        if not torch.equal(a, e):
            raise RuntimeError(f"{name}: output {i} of the saved trace differs from the model's")
    np.save(model_dir / "input0.npy", x.numpy())
    for i, t in enumerate(expected):
        np.save(model_dir / f"output{i}.npy", t.float().numpy())
    (model_dir / "stamp").write_text(stamp())  # last: a complete export


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the directory to write (in the build tree)")
    parser.add_argument("--only", default="", help="comma-separated model names (default: all)")
    parser.add_argument("--if-changed", action="store_true", help="skip up-to-date models")
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
        if args.if_changed and stamp_file.is_file() and stamp_file.read_text() == stamp():
            print(f"{name}: up to date")
            continue
        start = time.monotonic()
        export(name, args.out)
        print(f"{name}: exported in {time.monotonic() - start:.1f} s")
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
