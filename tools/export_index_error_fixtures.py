#!/usr/bin/env python3
"""Exports the indexing and attention models infernoc must refuse (test/fixtures/index_errors/,
checked by test/unit/cli_index_errors_test.cpp), traced with torch 1.13 under no_grad:

* ``bool_mask.pt``: ``x[x > 0]``, aten::index with a bool mask (a data-dependent size: exit 2);
* ``constant_index.pt``: ``x[:, idx]`` with a constant idx = [0, 4], traced for x [4, 5]; the test
  gives x [4, 3], so id 4 is out of range (exit 3 naming the node);
* ``repeat_counts.pt``: ``torch.repeat_interleave(counts)`` with counts computed from x
  (aten::repeat_interleave.Tensor: a data-dependent length, exit 2);
* ``mha_weights.pt``: nn.MultiheadAttention's fast path whose attention weights the model
  returns (infernoc does not compute them: exit 2 naming the value).

Debug records are dropped (torch 1.13 writes absolute paths in them), and every file is checked
for absolute paths.

Usage: ``/usr/bin/python3 tools/export_index_error_fixtures.py [OUT_DIR]`` (default:
test/fixtures/index_errors).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import export_fixtures as ef  # noqa: E402  (debug-record removal, the absolute-path check)


class BoolMask(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[x > 0]


class ConstantIndex(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("idx", torch.tensor([0, 4]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[:, self.idx]


class RepeatCounts(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.repeat_interleave((x[0] > 0).long())


class MhaWeights(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x: torch.Tensor):
        out, weights = self.mha(x, x, x)
        return out, weights


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ef.DEFAULT_OUT / "index_errors"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    torch.manual_seed(0)
    models = {
        "bool_mask.pt": (BoolMask(), torch.randn(4, 5)),
        "constant_index.pt": (ConstantIndex(), torch.randn(4, 5)),
        "repeat_counts.pt": (RepeatCounts(), torch.randn(4, 5)),
        "mha_weights.pt": (MhaWeights(), torch.randn(2, 3, 8)),
    }
    for name, (model, x) in models.items():
        path = out / name
        with torch.no_grad():
            traced = torch.jit.trace(model.eval(), (x,))
        traced.save(str(path))
        ef.drop_torchscript_debug_info(path)
        leaks = ef.find_absolute_paths(path.read_bytes())
        if leaks:
            print(f"{name}: absolute paths left: {leaks}")
            return 1
        kinds = sorted({n.kind() for n in torch.jit.load(str(path)).inlined_graph.nodes()})
        print(f"{name}: {path.stat().st_size} bytes, {kinds}")
    print(f"torch {torch.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
