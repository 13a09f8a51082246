#!/usr/bin/env python3
"""Export the TorchScript-only convolution fixture ``test/fixtures/conv_net``.

Unlike ``export_fixtures.py`` (torch >= 2.6, all three forms) this needs only TorchScript, so it
runs with the torch 1.13 of the development machine (``/usr/bin/python3``) as well as with newer
ones. It writes

* ``model.pt``          ``torch.jit.trace`` (convolutions as ``aten::_convolution``), debug
                        records scrubbed of absolute paths by export_fixtures.py's helpers;
* ``model_scripted.pt`` ``torch.jit.script`` of the same model (``aten::conv2d`` and
                        ``aten::conv1d`` calls, the 'same' padding string included);
* ``input<i>.npy``, ``output<i>.npy`` float32 inputs from a fixed seed and PyTorch's outputs.

The model covers 3x3 with padding, 1x1 without bias, stride 2, depthwise, grouped, dilated,
padding='same' (odd kernel), conv1d and transposed 2-D and 1-D convolutions (output_padding); weights are a few KB. A final scan fails if any absolute
path is left in a written file.

Usage: ``/usr/bin/python3 tools/export_conv_fixture.py [OUT_DIR]`` (default: test/fixtures).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import export_fixtures as ef  # noqa: E402  (the path scrubbing and checks)


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c3 = nn.Conv2d(4, 8, 3, padding=1)  # 3x3, padding 1, bias
        self.c1 = nn.Conv2d(8, 8, 1, bias=False)  # 1x1, no bias
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)  # stride 2
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)  # depthwise
        self.grouped = nn.Conv2d(8, 6, (3, 1), padding=(1, 0), groups=2)  # grouped, 3x1
        self.dilated = nn.Conv2d(6, 4, 3, padding=2, dilation=2)  # dilated
        self.same = nn.Conv2d(4, 4, 5, padding="same")  # 'same', odd kernel
        self.c1d = nn.Conv1d(4, 6, 3, stride=2, padding=1)  # conv1d
        self.up = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1)  # transposed
        self.up1d = nn.ConvTranspose1d(6, 3, 4, stride=2, padding=1, bias=False)  # transposed 1-D

    def forward(self, x: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.c3(x))
        y = self.c1(y)
        y = self.down(y)
        y = y + self.dw(y)
        y = self.grouped(y)
        y = self.dilated(y)
        y = self.up(self.same(y))
        return y, self.up1d(self.c1d(s))


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ef.DEFAULT_OUT
    model_dir = out / "conv_net"
    model_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(21)
    model = ConvNet().eval()
    gen = torch.Generator().manual_seed(1021)
    inputs = (torch.randn(2, 4, 12, 12, generator=gen), torch.randn(2, 4, 16, generator=gen))
    with torch.no_grad():
        expected = [t.clone() for t in model(*inputs)]
    print(f"conv_net (torch {torch.__version__})")
    status = ef.export_torchscript(model, inputs, expected, model_dir / "model.pt")
    scripted = model_dir / "model_scripted.pt"
    torch.jit.save(torch.jit.script(model), str(scripted))
    ef.scrub_torchscript(scripted)
    graph = ef.check_torchscript(scripted, inputs, expected)
    kinds = sorted({n.kind() for n in torch.jit.freeze(torch.jit.load(str(scripted)).eval()).graph.nodes()})
    print(f"  scripted, frozen node kinds: {kinds}\n  ({len(graph)} characters of graph)")
    ef.save_arrays(inputs, model_dir, "input")
    ef.save_arrays(expected, model_dir, "output")
    for path in sorted(model_dir.iterdir()):
        hits = ef.find_absolute_paths(path.read_bytes())
        if hits:
            raise SystemExit(f"{path}: absolute paths left: {hits[:3]}")
    print(f"  debug records: {status}; files: {sorted(p.name for p in model_dir.iterdir())}")


if __name__ == "__main__":
    main()
