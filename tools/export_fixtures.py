#!/usr/bin/env python3
"""Export the small model fixtures that infernoc's tests compile and check against.

infernoc reads two model formats: torch.export archives (``.pt2``) and TorchScript (``.pt``).
Neither can be produced without PyTorch, and the development/CI machines have no torch 2.x, so
the fixtures are exported once by this script (torch >= 2.6; the GPU machine has 2.11) and
committed. Everything is tiny (weights of a few KB), fp32, in eval mode and deterministic
(fixed seeds), so the files stay small and the expected outputs are reproducible.

For each model ``<out>/<model>/`` gets:

* ``model.pt2``            ``torch.export.save`` of ``torch.export.export(model, inputs)``
                           (the plain form: composite ops such as ``linear`` are kept);
* ``model_decomposed.pt2`` the same after ``ep.run_decompositions()`` (core ATen form);
* ``model.pt``             ``torch.jit.trace`` + ``torch.jit.save`` (TorchScript);
* ``input<i>.npy``         float32 inputs drawn from a fixed seed;
* ``output<i>.npy``        PyTorch's (eager) float32 outputs for those inputs.

``<out>/errors/`` holds inputs the compiler must reject cleanly: a model with several
unsupported ops, an archive with a pickled weight, one with a weight record too small for its
tensor, a truncated archive, and archives in the older (torch <= 2.7) layout.

``<out>/manifest.json`` lists every model: its user inputs (names as in the ``.pt2`` graph
signature, shapes, dtype), its outputs and its files, plus the error fixtures.

Exported files carry source locations of the machine they were made on. Committed files must
not contain any machine's absolute paths, so paths are rewritten to bare file names (keeping
line numbers): in the ``.pt2`` node ``stack_trace`` metadata before saving, and in the
TorchScript ``code/*.debug_pkl`` records after saving. A final scan fails loudly if any
absolute path is left in any written file.

Usage: ``python3 tools/export_fixtures.py [OUT_DIR] [--only MODEL ...]`` (default OUT_DIR:
``test/fixtures`` in the repo). ``--only`` exports just the named models (not the error
fixtures) and merges their entries into the existing manifest.
"""

from __future__ import annotations

import argparse
import io
import json
import pickle
import re
import shutil
import struct
import sys
import tempfile
import traceback
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from cnn_fixture_models import CnnBlock, CnnMixed, CnnNormsLists
from transformer_fixture_models import (EncoderLayers, SdpaForms, encoder_inputs, gpt2_inputs, gpt2_tiny,
                                        llama_tiny, sdpa_inputs)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "test" / "fixtures"

# torch writes every zip entry stored (uncompressed) with its data on a 64-byte boundary,
# padding the local header's extra field (id "FB", filled with 'Z'); rewritten archives do too.
ZIP_ALIGNMENT = 64
ZIP_LOCAL_HEADER_SIZE = 30
ZIP_EXTRA_HEADER_SIZE = 4
ZIP_FIXED_DATE = (1980, 1, 1, 0, 0, 0)

# Anything that looks like an absolute path of a machine: must not be in a committed file.
ABSOLUTE_PATH_BYTES = re.compile(rb"/(home|root|opt|usr|tmp|work|site-packages)/")
# Python traceback frames: File "/abs/dir/x.py", line 12, in forward.
STACK_TRACE_FILE = re.compile(r'File "[^"]*/([^"/]+)"')
# Any other absolute path of a Python file, e.g. TorchScript's "/abs/dir/x.py(12): forward".
ABSOLUTE_PY_PATH = re.compile(rb"(?<![\w.~-])/(?:[^\s/\"'()<>:,]+/)+([^\s/\"'()<>:,]+\.py)\b")

# TorchScript debug records (torch/csrc/jit/serialization/source_range_serialization.cpp):
# ("FORMAT_WITH_STRING_TABLE", (text, ...), ((byte_offset, range, tag), ...)) where
# range = (source, start, end) and source = (List[int] text indices, filename index, line).
DEBUG_PKL_FORMAT = "FORMAT_WITH_STRING_TABLE"
DEBUG_PKL_PROTOCOL = 2
# A source location as TorchScript prints it after a node: "# linear.py:125:0".
SOURCE_LOCATION = re.compile(r"# ([^\s/#]+\.py:\d+):\d+")

TOLERANCE = dict(rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


class MmRelu(nn.Module):
    """relu(x @ W), W a bare parameter (no bias)."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(16, 32) * 0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x @ self.weight)


class Mlp2(nn.Module):
    """Linear(16, 32) -> ReLU -> Linear(32, 8), with biases."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class MlpGeluSiluSoftmax(nn.Module):
    """Exact and tanh GELU, an eval-mode Dropout, SiLU and a final softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.gelu = nn.GELU()
        self.fc2 = nn.Linear(32, 32)
        self.gelu_tanh = nn.GELU(approximate="tanh")
        self.dropout = nn.Dropout(p=0.1)
        self.fc3 = nn.Linear(32, 24)
        self.silu = nn.SiLU()
        self.fc4 = nn.Linear(24, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.gelu(self.fc1(x))
        x = self.dropout(self.gelu_tanh(self.fc2(x)))
        x = self.silu(self.fc3(x))
        return torch.softmax(self.fc4(x), dim=-1)


class ElementwiseChain(nn.Module):
    """Elementwise math with broadcasting, a buffer, scalars, reductions and layout no-ops.

    Two inputs (x [4, 8], y [8]) and two outputs, so multi-input/multi-output is covered.
    """

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.rand(1, 8) + 0.5)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        gate = torch.sigmoid(x * self.scale + y)  # tensor mul/add, broadcast [1,8] and [8]
        out = (1.0 - gate) - torch.tanh(x) / 2.0 + torch.exp(-x.abs())  # rsub, div, neg, abs
        out = (out + 1.0) / (self.scale + 1.0) - 0.25  # scalar add/sub, tensor div
        out = out.t().contiguous().t()  # layout round trip: same values
        out = out.unsqueeze(0).squeeze(0).reshape(4, 8)
        out = out.mean(dim=1, keepdim=True) + out.sum(dim=0) * 0.5  # [4,1] + [8] -> [4,8]
        out = torch.log_softmax(out, dim=1)
        return out, x.relu()


class BmmMatmul(nn.Module):
    """bmm, broadcast matmul against a parameter, permute, view(2, -1) and expand."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8, 5) * 0.3)
        self.offset = nn.Parameter(torch.randn(1, 20) * 0.1)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batched = torch.bmm(a, b).permute(0, 2, 1)  # [2,4,6] -> [2,6,4]
        projected = torch.matmul(a, self.weight)  # [2,4,8] @ [8,5] -> [2,4,5]
        flat = projected.view(2, -1) + self.offset.expand(2, 20)  # [2,20]
        return batched, flat


class UnsupportedOps(nn.Module):
    """Supported ops (linear, relu, add, and cumsum since issue 19) mixed with ops infernoc does not
    support (sort, topk)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc(x))
        running = torch.cumsum(h, dim=1)
        ordered = torch.sort(h, dim=1, descending=True).values
        top = torch.topk(h, 2, dim=1).values.sum(dim=1, keepdim=True)
        return running + ordered + top


class Activations2(nn.Module):
    """Clamp-like activations (hardtanh, relu6, clamp with number and tensor bounds, clamp_min,
    clamp_max), hardswish, hardsigmoid, leaky_relu, elu, softplus, both GELUs, and in-place
    variants of them on intermediate values (in-place on a user input would be an input mutation).

    Inputs: x [4, 16] with the kinks of these functions (-6, -3, -1, 0, 1, 3, 6, ...) among its
    values; lo [16], per-column clamp bounds.
    """

    def forward(self, x: torch.Tensor, lo: torch.Tensor) -> tuple[torch.Tensor, ...]:
        hardtanh = F.hardtanh(x, -2.0, 2.5)
        relu6 = F.relu6(x)
        clamp_both = x.clamp(min=-1.5, max=4.0)
        clamp_tensor = torch.clamp(x, min=lo, max=lo + 2.0)  # clamp.Tensor, broadcast [16]
        clamp_min_only = torch.clamp(x, min=-0.5) + torch.clamp(x, max=0.75)
        clamp_min_max = x.clamp_min(lo) + x.clamp_max(1.0)
        hardswish = F.hardswish(x)
        hardsigmoid = F.hardsigmoid(x)
        leaky = F.leaky_relu(x, 0.1) + F.leaky_relu(x)
        elu = F.elu(x, alpha=0.7) + torch.ops.aten.elu.default(x, 1.3, 1.05, 0.8)
        softplus = F.softplus(x, beta=2.0, threshold=5.0) + F.softplus(x)
        gelu_tanh = F.gelu(x, approximate="tanh")
        gelu = F.gelu(x)
        # In-place variants. `t.clamp_` is not assigned: later reads of t see the clamped values.
        t = x * 1.5
        t.clamp_(-1.0, 1.0)
        inplace = t + F.hardswish(x * 2.0, inplace=True) + F.leaky_relu(x - 1.0, 0.2, inplace=True)
        inplace = inplace + F.elu(x + 1.0, inplace=True) + F.relu6(x * 3.0, inplace=True)
        inplace = inplace + F.hardtanh(x * 0.5, -0.25, 0.25, inplace=True)
        inplace = inplace + F.hardsigmoid(x * 0.75, inplace=True)
        return (hardtanh, relu6, clamp_both, clamp_tensor, clamp_min_only, clamp_min_max, hardswish,
                hardsigmoid, leaky, elu, softplus, gelu_tanh, gelu, inplace)


class MathOps(nn.Module):
    """sqrt, rsqrt, reciprocal, log, erf, cos, sin, pow (number and tensor exponents, a number
    base), an in-place sqrt_, and float math on an integer tensor (PyTorch computes it in f32).

    Inputs: p [4, 8] positive (0.1 to 4); x [4, 8] of both signs.
    """

    def forward(self, p: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        roots = torch.sqrt(p) + torch.rsqrt(p)
        recip = torch.reciprocal(x)
        logs = torch.log(p)
        erf = torch.erf(x)
        trig = torch.cos(x) - 2.0 * torch.sin(x)
        powers = torch.pow(p, 2.5) + p**2 + x.pow(3)  # pow.Tensor_Scalar (float and int)
        pow_tensor = torch.pow(p, x)  # pow.Tensor_Tensor
        pow_base = torch.pow(2.0, x)  # pow.Scalar
        inplace = (p * 2.0).sqrt_() + (p + 1.0).log_()
        ints = (x * 4.0).long()  # truncation toward zero
        int_math = torch.sqrt(ints.abs()) + torch.cos(ints)  # i64 in, f32 out
        return roots, recip, logs, erf, trig, powers, pow_tensor, pow_base, inplace, int_math


class CompareLogic(nn.Module):
    """Comparisons (tensor and number operands), logical and bitwise ops on bool masks, where in
    all four forms, masked_fill (number and 0-d tensor values), minimum/maximum, fills
    (full_like, zeros_like, ones_like, full, scalar_tensor) and bool/int casts. Every output is
    float32: masks are turned into numbers inside the model.

    Inputs: x [4, 8]; y [4, 8], equal to x in some places (ties for eq/le/ge) and with zeros.
    """

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        gt, lt, le, eq = x > y, x < y, x <= y, x == y
        ge0, ne_half, eq0 = x >= 0.0, x != 0.5, torch.eq(y, 0.0)
        compares = (gt.float() + 2.0 * lt.float() + 4.0 * le.float() + 8.0 * eq.float()
                    + 16.0 * ge0.float() + 32.0 * ne_half.float() + 64.0 * eq0.float())
        logic = (torch.logical_and(gt, ge0).float() + 2.0 * torch.logical_or(lt, eq0).float()
                 + 4.0 * torch.logical_not(le).float() + 8.0 * (gt & ge0).float()
                 + 16.0 * (lt | eq).float() + 32.0 * (~le).float()
                 + 64.0 * torch.logical_not(x).float())  # logical_not of a float tensor
        where_self = torch.where(gt, x, y)
        where_scalars = torch.where(ge0, x, 0.0) + torch.where(lt, -1.0, y) + torch.where(eq, 1.0, 0.0)
        filled = x.masked_fill(lt, -2.0) + y.masked_fill(ge0, torch.tensor(3.0))
        masked = y * 1.0
        masked.masked_fill_(eq0, 5.0)
        min_max = torch.minimum(x, y) + 2.0 * torch.maximum(x, y)
        fills = (torch.full_like(x, 0.25) + 3.0 * torch.zeros_like(x) + 2.0 * torch.ones_like(y)
                 + torch.full((1, 8), 1.5) + torch.scalar_tensor(0.125)) * x
        longs, ints, bools = x.long(), (y * 3.0).int(), x.bool()
        casts = (longs.float() + 0.5 * ints.float() + 0.25 * bools.float()
                 + (longs > 0).float() + torch.where(bools, ints, 7).float()
                 + longs.masked_fill(gt, 9).float() + torch.maximum(longs, ints).float())
        return compares, logic, where_self, where_scalars, filled, masked, min_max, fills, casts


@dataclass(frozen=True)
class ModelSpec:
    name: str
    factory: Callable[[], nn.Module]
    input_shapes: tuple[tuple[int, ...], ...]
    seed: int
    # Inputs made from a seeded generator, where random normals do not cover what the model
    # needs (positive values, kinks, ties); None: torch.randn of input_shapes.
    inputs: Optional[Callable[[torch.Generator], tuple[torch.Tensor, ...]]] = None
    # False for models whose ops LibTorch 1.13 (the TorchScript loader) does not know.
    torchscript: bool = True


# Values at and around the kinks of the activations (hardtanh/relu6/clamp bounds, hardswish and
# hardsigmoid at +-3, the zero of relu-likes), all exactly representable in float32.
KINKS = (-8.0, -6.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5, -0.25, -0.1, 0.0, 0.1, 0.25, 0.5,
         0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 6.0, 7.0, 8.0)


def activation_inputs(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(4, 16, generator=gen) * 3.0
    kinks = torch.tensor(KINKS, dtype=torch.float32)
    x.view(-1)[: len(kinks)] = kinks
    lo = torch.randn(16, generator=gen) * 0.5 - 0.5
    return x, lo


def math_inputs(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    p = torch.rand(4, 8, generator=gen) * 3.9 + 0.1
    x = torch.randn(4, 8, generator=gen) * 1.5
    return p, x


def compare_inputs(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(4, 8, generator=gen)
    y = torch.randn(4, 8, generator=gen)
    y.view(-1)[::3] = x.view(-1)[::3]  # ties
    y.view(-1)[1::7] = 0.0
    x.view(-1)[2::9] = 0.5
    x.view(-1)[5::11] = 0.0
    return x, y


MODELS = (
    ModelSpec("mm_relu", MmRelu, ((8, 16),), seed=1),
    ModelSpec("mlp2", Mlp2, ((4, 16),), seed=2),
    ModelSpec("mlp_gelu_silu_softmax", MlpGeluSiluSoftmax, ((4, 16),), seed=3),
    ModelSpec("elementwise_chain", ElementwiseChain, ((4, 8), (8,)), seed=4),
    ModelSpec("bmm_matmul", BmmMatmul, ((2, 4, 8), (2, 8, 6)), seed=5),
    ModelSpec("activations2", Activations2, ((4, 16), (16,)), seed=7, inputs=activation_inputs),
    ModelSpec("math_ops", MathOps, ((4, 8), (4, 8)), seed=8, inputs=math_inputs),
    ModelSpec("compare_logic", CompareLogic, ((4, 8), (4, 8)), seed=9, inputs=compare_inputs),
    ModelSpec("cnn_block", CnnBlock, ((2, 3, 32, 32),), seed=10),
    ModelSpec("cnn_mixed", CnnMixed, ((1, 8, 15, 17),), seed=11),
    ModelSpec("cnn_norms_lists", CnnNormsLists, ((2, 8, 6, 5),), seed=12),
    ModelSpec("transformer_sdpa", SdpaForms, ((2, 4, 37, 16),) * 3 + ((2, 1, 1, 37),), seed=13,
              inputs=sdpa_inputs, torchscript=False),
    ModelSpec("transformer_gpt2", gpt2_tiny, ((1, 20),), seed=14, inputs=gpt2_inputs),
    ModelSpec("transformer_llama", llama_tiny, ((1, 19, 32),), seed=15),
    ModelSpec("transformer_encoder", EncoderLayers, ((2, 13, 32), (2, 13)), seed=16,
              inputs=encoder_inputs),
)
UNSUPPORTED = ModelSpec("unsupported_ops", UnsupportedOps, ((4, 8),), seed=6)
# Ops of UnsupportedOps that the export must keep (substrings of the ATen targets); the compiler
# names sort and topk (cumsum is supported).
UNSUPPORTED_OP_NAMES = ("cumsum", "sort", "topk")


def build_model(spec: ModelSpec) -> nn.Module:
    torch.manual_seed(spec.seed)
    return spec.factory().eval()


def make_inputs(spec: ModelSpec) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(1000 + spec.seed)
    if spec.inputs is not None:
        # Floating inputs in float32; token ids (int64) and masks (bool) keep their dtypes.
        inputs = tuple((t.to(torch.float32) if t.is_floating_point() else t).contiguous() for t in spec.inputs(gen))
        shapes = tuple(tuple(t.shape) for t in inputs)
        if shapes != spec.input_shapes:
            raise AssertionError(f"{spec.name}: inputs of shapes {shapes}, expected {spec.input_shapes}")
        return inputs
    return tuple(torch.randn(shape, generator=gen, dtype=torch.float32) for shape in spec.input_shapes)


def as_tensor_list(result) -> list[torch.Tensor]:
    if isinstance(result, torch.Tensor):
        return [result]
    return [t for t in result]


def assert_same_outputs(got, expected: list[torch.Tensor], what: str) -> None:
    got_list = as_tensor_list(got)
    if len(got_list) != len(expected):
        raise AssertionError(f"{what}: {len(got_list)} outputs, expected {len(expected)}")
    for i, (g, e) in enumerate(zip(got_list, expected)):
        torch.testing.assert_close(g, e, **TOLERANCE, msg=lambda m: f"{what}, output {i}: {m}")


# --------------------------------------------------------------------------------------------
# Path scrubbing
# --------------------------------------------------------------------------------------------


def scrub_text(text: str) -> str:
    """Rewrites absolute source paths in a stack trace or message to bare file names."""
    text = STACK_TRACE_FILE.sub(r'File "\1"', text)
    return ABSOLUTE_PY_PATH.sub(rb"\1", text.encode("utf-8")).decode("utf-8")


def scrub_exported_program(ep: torch.export.ExportedProgram) -> None:
    """Rewrites node.meta["stack_trace"] of every node (subgraphs included) in place."""
    for module in ep.graph_module.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            trace = node.meta.get("stack_trace")
            if isinstance(trace, str):
                node.meta["stack_trace"] = scrub_text(trace)


def scrub_with_offset_map(data: bytes) -> tuple[bytes, Callable[[int], int]]:
    """Scrubs absolute .py paths out of ``data``; also returns old byte offset -> new offset."""
    spans = []  # (old_start, old_end, new_start, new_end)
    pieces = []
    last = shift = 0
    for m in ABSOLUTE_PY_PATH.finditer(data):
        pieces.append(data[last : m.start()])
        replacement = m.group(1)
        new_start = m.start() + shift
        spans.append((m.start(), m.end(), new_start, new_start + len(replacement)))
        pieces.append(replacement)
        shift += len(replacement) - (m.end() - m.start())
        last = m.end()
    pieces.append(data[last:])

    def offset_map(pos: int) -> int:
        delta = 0
        for old_start, old_end, new_start, new_end in spans:
            if pos <= old_start:
                break
            if pos < old_end:  # inside a rewritten path: clamp into its replacement
                return min(new_start + (pos - old_start), new_end)
            delta = new_end - old_end
        return pos + delta

    return b"".join(pieces), offset_map


class _IntList(list):
    """A TorchScript List[int]; pickled back the way TorchScript's pickler writes one."""

    def __reduce__(self):
        import torch.jit._pickle as jit_pickle

        return (jit_pickle.build_intlist, (list(self),))


class _DebugPickleUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if module == "torch.jit._pickle" and name == "build_intlist":
            return _IntList
        raise pickle.UnpicklingError(f"unexpected global {module}.{name} in a debug_pkl record")


def scrub_debug_pickle(data: bytes) -> bytes:
    """Rewrites the source texts and file names of a TorchScript ``.debug_pkl`` record.

    The source ranges index bytes of the concatenated texts, so they are remapped to the
    shortened texts; the byte offsets into the generated code are unchanged.
    """
    obj = _DebugPickleUnpickler(io.BytesIO(data)).load()
    if not (isinstance(obj, tuple) and len(obj) == 3 and obj[0] == DEBUG_PKL_FORMAT):
        raise ValueError("debug_pkl record is not in the string-table format")
    _, texts, records = obj
    new_texts, offset_maps, old_lengths = [], [], []
    for text in texts:
        raw = text.encode("utf-8")
        new_raw, offset_map = scrub_with_offset_map(raw)
        new_texts.append(new_raw.decode("utf-8"))
        offset_maps.append(offset_map)
        old_lengths.append(len(raw))
    new_lengths = [len(t.encode("utf-8")) for t in new_texts]

    def map_offset(line_ids, pos: int) -> int:
        old_base = new_base = 0
        for idx in line_ids:
            if pos <= old_base + old_lengths[idx]:
                return new_base + offset_maps[idx](pos - old_base)
            old_base += old_lengths[idx]
            new_base += new_lengths[idx]
        return new_base + (pos - old_base)

    new_ranges: dict[int, tuple] = {}  # keeps shared ranges shared, as TorchScript wrote them

    def map_range(rng):
        if id(rng) not in new_ranges:
            source, start, end = rng
            line_ids = source[0]
            new_ranges[id(rng)] = (source, map_offset(line_ids, start), map_offset(line_ids, end))
        return new_ranges[id(rng)]

    new_records = tuple((rec[0], map_range(rec[1]), *rec[2:]) for rec in records)
    return pickle.dumps((DEBUG_PKL_FORMAT, tuple(new_texts), new_records), protocol=DEBUG_PKL_PROTOCOL)


def scrub_json_strings(value):
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, list):
        return [scrub_json_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: scrub_json_strings(v) for k, v in value.items()}
    return value


def find_absolute_paths(data: bytes, context: int = 40) -> list[str]:
    hits = []
    for m in ABSOLUTE_PATH_BYTES.finditer(data):
        lo, hi = max(0, m.start() - context), m.end() + context
        hits.append(data[lo:hi].decode("utf-8", "replace"))
    return hits


# --------------------------------------------------------------------------------------------
# Zip archives
# --------------------------------------------------------------------------------------------


def inner_name(entry: str) -> str:
    """Entry name without the archive's top folder (torch puts everything under one)."""
    return entry.split("/", 1)[1] if "/" in entry else entry


def read_entries(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def write_stored_zip(path: Path, entries: list[tuple[str, bytes]]) -> None:
    """Writes entries uncompressed, each one's data 64-byte aligned, like torch's writer."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_FIXED_DATE)
            info.compress_type = zipfile.ZIP_STORED
            header_end = (
                zf.fp.tell() + ZIP_LOCAL_HEADER_SIZE + len(name.encode("utf-8")) + ZIP_EXTRA_HEADER_SIZE
            )
            pad = -header_end % ZIP_ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            zf.writestr(info, data)


def misaligned_entries(path: Path) -> list[str]:
    """Names of entries whose data does not start on a 64-byte boundary."""
    bad = []
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            name_len, extra_len = struct.unpack_from("<HH", raw, info.header_offset + 26)
            data_offset = info.header_offset + ZIP_LOCAL_HEADER_SIZE + name_len + extra_len
            if data_offset % ZIP_ALIGNMENT:
                bad.append(info.filename)
    return bad


def rewrite_archive(src: Path, dst: Path, transform: Callable[[str, bytes], Optional[bytes]]) -> None:
    """Copies a zip entry by entry; ``transform(inner_name, data)`` returns new data, or None
    to drop the entry. Entry names and order are kept."""
    out = []
    for name, data in read_entries(src):
        new = transform(inner_name(name), data)
        if new is not None:
            out.append((name, new))
    write_stored_zip(dst, out)


def rewrite_in_place(path: Path, transform: Callable[[str, bytes], Optional[bytes]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    rewrite_archive(path, tmp, transform)
    tmp.replace(path)


# --------------------------------------------------------------------------------------------
# Exporters
# --------------------------------------------------------------------------------------------


def scrub_pt2_json_entries(path: Path) -> None:
    """Second line of defence: scrubs paths left in any JSON entry of a saved ``.pt2``."""
    dirty = [n for n, d in read_entries(path) if n.endswith(".json") and ABSOLUTE_PATH_BYTES.search(d)]
    if not dirty:
        return
    print(f"  note: paths left in {', '.join(inner_name(n) for n in dirty)} of {path.name}; scrubbing")

    def transform(name: str, data: bytes) -> bytes:
        if name.endswith(".json") and ABSOLUTE_PATH_BYTES.search(data):
            return json.dumps(scrub_json_strings(json.loads(data))).encode("utf-8")
        return data

    rewrite_in_place(path, transform)


def save_exported_program(ep, path: Path, inputs, expected) -> None:
    scrub_exported_program(ep)
    torch.export.save(ep, str(path))
    scrub_pt2_json_entries(path)
    loaded = torch.export.load(str(path))
    with torch.no_grad():
        assert_same_outputs(loaded.module()(*inputs), expected, f"torch.export.load({path.name})")


def call_targets(ep) -> list[str]:
    return sorted({str(n.target) for n in ep.graph_module.graph.nodes if n.op == "call_function"})


def export_pt2(model: nn.Module, inputs, expected, model_dir: Path) -> dict:
    ep = torch.export.export(model, inputs)
    save_exported_program(ep, model_dir / "model.pt2", inputs, expected)
    decomposed = ep.run_decompositions()
    save_exported_program(decomposed, model_dir / "model_decomposed.pt2", inputs, expected)
    return {
        "user_inputs": list(ep.graph_signature.user_inputs),
        "first_parameter": next(iter(ep.graph_signature.inputs_to_parameters.values()), None),
        "targets": call_targets(ep),
        "decomposed_targets": call_targets(decomposed),
    }


def scrub_torchscript(path: Path) -> None:
    def transform(name: str, data: bytes) -> bytes:
        return scrub_debug_pickle(data) if name.endswith(".debug_pkl") else data

    rewrite_in_place(path, transform)


def drop_torchscript_debug_info(path: Path) -> None:
    rewrite_in_place(path, lambda name, data: None if name.endswith(".debug_pkl") else data)


def check_torchscript(path: Path, inputs, expected) -> str:
    """Loads the file, checks its outputs; returns its inlined graph (with source locations)."""
    loaded = torch.jit.load(str(path))
    with torch.no_grad():
        assert_same_outputs(loaded(*inputs), expected, f"torch.jit.load({path.name})")
    return str(loaded.inlined_graph)  # printing source locations reads the debug records


def export_torchscript(model: nn.Module, inputs, expected, path: Path) -> str:
    """Traces and saves; returns how the debug info was kept ("rewritten" or "dropped")."""
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs)
    torch.jit.save(traced, str(path))
    pristine = path.read_bytes()
    try:
        scrub_torchscript(path)
        graph = check_torchscript(path, inputs, expected)
        status = "rewritten"
    except Exception as exc:  # keep a usable file; say loudly that locations were lost
        print(f"  WARNING: {path.name}: rewriting debug records failed ({exc!r}); dropping them")
        path.write_bytes(pristine)
        drop_torchscript_debug_info(path)
        graph = check_torchscript(path, inputs, expected)
        status = "dropped"
    print(f"  TorchScript graph of {path.parent.name}/{path.name}:\n{graph}")
    locations = sorted(set(SOURCE_LOCATION.findall(graph)))
    print(f"  source locations in it ({status} debug records): {locations or 'NONE'}")
    frozen = torch.jit.freeze(torch.jit.load(str(path)).eval())
    kinds = sorted({n.kind() for n in frozen.graph.nodes()})
    print(f"  frozen TorchScript node kinds: {kinds}")
    return status


# torch dtypes of fixture inputs -> infernoc's dtype names (the manifest's and --input's).
DTYPE_NAMES = {torch.float32: "f32", torch.int64: "i64", torch.bool: "bool"}


def save_arrays(tensors, model_dir: Path, prefix: str) -> list[str]:
    names = []
    for i, t in enumerate(tensors):
        name = f"{prefix}{i}.npy"
        t = t.detach()
        np.save(model_dir / name, (t.to(torch.float32) if t.is_floating_point() else t).contiguous().numpy())
        names.append(name)
    return names


def export_model(spec: ModelSpec, out: Path) -> tuple[dict, dict]:
    model_dir = out / spec.name
    shutil.rmtree(model_dir, ignore_errors=True)
    model_dir.mkdir(parents=True)
    model = build_model(spec)
    inputs = make_inputs(spec)
    with torch.no_grad():
        expected = [t.clone() for t in as_tensor_list(model(*inputs))]

    info = export_pt2(model, inputs, expected, model_dir)
    debug_info = export_torchscript(model, inputs, expected, model_dir / "model.pt") if spec.torchscript else None
    input_files = save_arrays(inputs, model_dir, "input")
    output_files = save_arrays(expected, model_dir, "output")
    print(f"  plain targets: {info['targets']}\n  decomposed targets: {info['decomposed_targets']}")

    entry = {
        "name": spec.name,
        "inputs": [
            {"name": n, "shape": list(t.shape), "dtype": DTYPE_NAMES[t.dtype], "file": f}
            for n, t, f in zip(info["user_inputs"], inputs, input_files)
        ],
        "num_outputs": len(expected),
        "outputs": [{"shape": list(t.shape), "dtype": "f32", "file": f} for t, f in zip(expected, output_files)],
        "files": sorted(p.name for p in model_dir.iterdir()),
        "aten_targets": {"plain": info["targets"], "decomposed": info["decomposed_targets"]},
        "torchscript_debug_info": debug_info,
    }
    return entry, info


# --------------------------------------------------------------------------------------------
# Error fixtures
# --------------------------------------------------------------------------------------------


def export_unsupported(errors: Path) -> dict:
    spec = UNSUPPORTED
    model = build_model(spec)
    inputs = make_inputs(spec)
    with torch.no_grad():
        expected = as_tensor_list(model(*inputs))
    ep = torch.export.export(model, inputs)
    save_exported_program(ep, errors / "unsupported_ops.pt2", inputs, expected)
    export_torchscript(model, inputs, expected, errors / "unsupported_ops.pt")
    targets = call_targets(ep)
    unsupported = [t for t in targets if any(op in t for op in UNSUPPORTED_OP_NAMES)]
    missing = [op for op in UNSUPPORTED_OP_NAMES if not any(op in t for t in unsupported)]
    if missing:
        raise AssertionError(f"unsupported_ops export lost ops {missing}; targets: {targets}")
    print(f"  unsupported_ops targets: {targets}")
    return {
        "input": {"name": ep.graph_signature.user_inputs[0], "shape": list(spec.input_shapes[0]), "dtype": "f32"},
        "unsupported_targets": unsupported,
        "all_targets": targets,
    }


def make_pickle_entry(src: Path, dst: Path) -> str:
    """Marks the first weight of the config as pickled; returns its FQN."""
    marked = []

    def transform(name: str, data: bytes) -> bytes:
        if name != "data/weights/model_weights_config.json":
            return data
        config = json.loads(data)
        fqn = next(iter(config["config"]))
        config["config"][fqn]["use_pickle"] = True
        marked.append(fqn)
        return json.dumps(config).encode("utf-8")

    rewrite_archive(src, dst, transform)
    if not marked:
        raise AssertionError(f"{src} has no data/weights/model_weights_config.json")
    return marked[0]


def weight_record_name(src: Path, fqn: str) -> str:
    entries = {inner_name(n): d for n, d in read_entries(src)}
    config = json.loads(entries["data/weights/model_weights_config.json"])["config"]
    path_name = config[fqn]["path_name"]
    return path_name if path_name.startswith("data/") else f"data/weights/{path_name}"


def make_weight_too_small(src: Path, dst: Path, fqn: str, needed_bytes: int) -> dict:
    """Truncates the weight record of ``fqn`` to half the bytes its tensor needs."""
    record = weight_record_name(src, fqn)
    keep = needed_bytes // 2
    seen = []

    def transform(name: str, data: bytes) -> bytes:
        if name != record:
            return data
        if len(data) < needed_bytes:
            raise AssertionError(f"{record} has {len(data)} bytes, expected >= {needed_bytes}")
        seen.append(len(data))
        return data[:keep]

    rewrite_archive(src, dst, transform)
    if not seen or not 0 < keep < needed_bytes:
        raise AssertionError(f"could not truncate {record} of {src}")
    return {"parameter": fqn, "record": record, "bytes": keep, "needed_bytes": needed_bytes}


def make_truncated(src: Path, dst: Path, fraction: float = 0.6) -> int:
    data = src.read_bytes()
    keep = int(len(data) * fraction)
    dst.write_bytes(data[:keep])
    return keep


def old_layout_entries(top: str) -> list[tuple[str, bytes]]:
    """The entries of a torch <= 2.7 ``torch.export.save`` archive (contents are placeholders)."""
    names = {
        "serialized_exported_program.json": b"{}",
        "serialized_state_dict.pt": b"",
        "serialized_constants.pt": b"",
        "serialized_example_inputs.pt": b"",
        "version": b"7.3",  # the old writer's schema version, "major.minor"
    }
    return [(f"{top}{name}", data) for name, data in names.items()]


def try_torch_export_load(path: Path) -> str:
    try:
        torch.export.load(str(path))
        return "loads"
    except Exception as exc:  # reported, not fatal: most of these are meant to be rejected
        return f"fails: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def zip_opens(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as zf:
            return zf.testzip() is None
    except Exception:  # BadZipFile, or OSError/EOFError on a damaged file
        return False


def check_writer_roundtrip(src: Path, spec: ModelSpec) -> None:
    """Proves the zip writer makes archives torch reads: identity rewrite, load, compare."""
    model = build_model(spec)
    inputs = make_inputs(spec)
    with torch.no_grad():
        expected = as_tensor_list(model(*inputs))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / src.name
        rewrite_archive(src, copy, lambda name, data: data)
        if misaligned_entries(copy):
            raise AssertionError(f"rewritten copy of {src.name} has misaligned entries")
        with torch.no_grad():
            assert_same_outputs(torch.export.load(str(copy)).module()(*inputs), expected, "rewritten copy")


def export_errors(out: Path, mlp2_info: dict) -> list[dict]:
    errors = out / "errors"
    shutil.rmtree(errors, ignore_errors=True)
    errors.mkdir(parents=True)
    mlp2_spec = next(s for s in MODELS if s.name == "mlp2")
    mlp2_pt2 = out / "mlp2" / "model.pt2"
    check_writer_roundtrip(mlp2_pt2, mlp2_spec)

    unsupported = export_unsupported(errors)
    fqn = mlp2_info["first_parameter"]
    param = dict(build_model(mlp2_spec).named_parameters())[fqn]
    pickled = make_pickle_entry(mlp2_pt2, errors / "pickle_entry.pt2")
    small = make_weight_too_small(
        mlp2_pt2, errors / "weight_too_small.pt2", fqn, param.numel() * param.element_size()
    )
    truncated_bytes = make_truncated(mlp2_pt2, errors / "truncated.pt2")
    write_stored_zip(errors / "old_format.pt2", old_layout_entries("old_format/"))
    write_stored_zip(errors / "old_format_flat.pt2", old_layout_entries(""))

    entries = [
        {"file": "errors/unsupported_ops.pt2", "expect": "unsupported ops, every one listed", **unsupported},
        {"file": "errors/unsupported_ops.pt", "expect": "unsupported ops, every one listed", **unsupported},
        {"file": "errors/pickle_entry.pt2", "expect": "refuse pickled payload", "source": "mlp2/model.pt2",
         "pickled_weight": pickled},
        {"file": "errors/weight_too_small.pt2", "expect": "weight record smaller than its tensor",
         "source": "mlp2/model.pt2", **small},
        {"file": "errors/truncated.pt2", "expect": "truncated zip", "source": "mlp2/model.pt2",
         "bytes": truncated_bytes},
        {"file": "errors/old_format.pt2", "expect": "torch <= 2.7 layout under a top folder: name the torch version needed"},
        {"file": "errors/old_format_flat.pt2",
         "expect": "torch <= 2.7 layout as it was written (no top folder): reject cleanly"},
    ]
    for path in sorted(errors.glob("*.pt2")):
        opens = zip_opens(path)
        aligned = ("NOT aligned" if misaligned_entries(path) else "aligned") if opens else "-"
        print(f"  errors/{path.name}: zip opens: {opens}, {aligned}; "
              f"torch.export.load {try_torch_export_load(path)}")
    return entries


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def scan_for_paths(out: Path) -> list[str]:
    problems = []
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        for hit in find_absolute_paths(path.read_bytes()):
            problems.append(f"{path.relative_to(out)}: ...{hit!r}...")
    return problems


def write_manifest(out: Path, models: list[dict], errors: list[dict]) -> None:
    manifest = {
        "generator": "tools/export_fixtures.py",
        "torch_version": torch.__version__.split("+")[0],
        "models": models,
        "errors": errors,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT,
                        help="output directory (default: test/fixtures of this repository)")
    parser.add_argument("--only", nargs="+", metavar="MODEL", choices=[s.name for s in MODELS],
                        help="export only these models, not the error fixtures; the manifest keeps "
                             "the other entries of the existing one (OUT's, else the repository's)")
    return parser.parse_args(argv)


def merge_manifest(out: Path, models: list[dict]) -> tuple[list[dict], list[dict]]:
    """The existing manifest's models with ``models`` replacing or joining them, and its errors."""
    base_path = out / "manifest.json"
    if not base_path.exists():
        base_path = DEFAULT_OUT / "manifest.json"
    base = json.loads(base_path.read_text())
    fresh = {m["name"]: m for m in models}
    merged = [fresh.pop(m["name"], m) for m in base["models"]]
    merged += [m for m in models if m["name"] in fresh]
    return merged, base["errors"]


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    print(f"torch {torch.__version__}, numpy {np.__version__}")

    models, failures, infos = [], [], {}
    specs = [s for s in MODELS if not args.only or s.name in args.only]
    for spec in specs:
        print(f"== {spec.name}")
        try:
            entry, infos[spec.name] = export_model(spec, out)
            models.append(entry)
        except Exception:
            traceback.print_exc()
            failures.append(spec.name)

    errors: list[dict] = []
    if args.only:
        models, errors = merge_manifest(out, models)
        print(f"== errors: not exported (--only); {len(errors)} kept from the existing manifest")
    elif "mlp2" in infos:
        print("== errors")
        try:
            errors = export_errors(out, infos["mlp2"])
        except Exception:
            traceback.print_exc()
            failures.append("errors")
    else:
        failures.append("errors (needs mlp2)")

    write_manifest(out, models, errors)
    leaks = scan_for_paths(out)
    for leak in leaks:
        print(f"ABSOLUTE PATH LEFT: {leak}", file=sys.stderr)
    if leaks:
        failures.append(f"{len(leaks)} absolute path(s) left in written files")
    if failures:
        print(f"FAILED: {failures}", file=sys.stderr)
        return 1
    print(f"wrote fixtures for {len(models)} models and {len(errors)} error cases")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
