#!/usr/bin/env python3
"""Exports the convolutions infernoc must refuse (test/fixtures/conv_errors/, checked by
test/unit/cli_conv_errors_test.cpp): TorchScript files whose conv is inconsistent (exit 3) or a
variant infernoc does not support (exit 2). PyTorch refuses the inconsistent ones when it runs
them, so they are scripted, not traced: torch.jit.script compiles the call without running it.

* ``groups_mismatch.pt``: conv2d with groups=2 over a weight of 3 output channels (and an input
  whose channel count the test gives: 3, not divisible by 2 either);
* ``negative_padding.pt``: conv2d with padding -1;
* ``conv5x5.pt``: a valid 5x5 conv without padding, which the test feeds a 3x3 input (a kernel
  larger than the padded input);
* ``conv3d.pt``: a traced nn.Conv3d (aten::_convolution over a 5-D input), and
* ``conv3d_scripted.pt``: F.conv3d scripted (aten::conv3d): both compile, and the test feeds the
  first an input of fewer frames than its kernel.

The weights are tiny and seeded; debug records are dropped (torch 1.13 writes absolute paths in
them), and every file is checked for absolute paths.

Usage: ``/usr/bin/python3 tools/export_conv_error_fixtures.py [OUT_DIR]`` (default:
test/fixtures/conv_errors).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import export_fixtures as ef  # noqa: E402  (debug-record removal, the absolute-path check)


class GroupsMismatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 2, 3, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, self.w, None, 1, 1, 1, 2)


class NegativePadding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 3, 3, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, self.w, None, 1, -1)


class Conv5x5(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


class Conv3dScripted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(2, 1, 3, 3, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv3d(x, self.w)


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ef.DEFAULT_OUT / "conv_errors"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    torch.manual_seed(0)
    files = {
        "groups_mismatch.pt": torch.jit.script(GroupsMismatch().eval()),
        "negative_padding.pt": torch.jit.script(NegativePadding().eval()),
        "conv5x5.pt": torch.jit.script(Conv5x5().eval()),
        "conv3d.pt": torch.jit.trace(nn.Conv3d(1, 2, 3).eval(), torch.randn(1, 1, 4, 4, 4)),
        "conv3d_scripted.pt": torch.jit.script(Conv3dScripted().eval()),
    }
    for name, module in files.items():
        path = out / name
        module.save(str(path))
        ef.drop_torchscript_debug_info(path)
        leaks = ef.find_absolute_paths(path.read_bytes())
        if leaks:
            print(f"{name}: absolute paths left: {leaks}")
            return 1
        print(f"{name}: {path.stat().st_size} bytes")
    print(f"torch {torch.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
