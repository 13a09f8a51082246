#!/usr/bin/env python3
"""Exports the TorchScript-only fixtures: models traced with the distribution's torch (1.13,
``/usr/bin/python3`` with ``python3-torch``), which cannot make ``.pt2`` files.

Each model goes to ``<out>/<name>/``: ``model.pt`` (traced, debug records rewritten to bare file
names by export_fixtures.py's scrubber, and checked for absolute paths), ``input<i>.npy`` and
PyTorch's ``output<i>.npy`` (f32). The models are tiny and seeded, so the files stay small and
reproducible.

Models:
* ``cnn_ops``: the non-convolution CNN ops: BatchNorm (2-D, 1-D on [N, C] and [N, C, L], with and
  without affine parameters), max/avg/adaptive pooling in their edge cases (ceil_mode, padding,
  dilation, count_include_pad both ways, divisor_override), the size arithmetic of
  ``x.view(x.size(0), -1)``, and a tuple of outputs.
* ``joins``: cat (inputs of mixed dtypes promoted, negative dims) and constant padding
  (``F.pad`` and ``constant_pad_nd``, negative pads cropping).
* ``dict_out``: a segmentation head's shape: a dict output ({"out", "aux"}), sizes read from
  ``x.shape`` and a floor division on a size in the trace, feeding a reshape.
* ``norms``: layer_norm (ConvNeXt's permute -> LayerNorm over channels -> permute back, over two
  dims, without affine parameters, a bias without a weight, ``torch.native_layer_norm``) and
  group_norm (groups of several channels, a group per channel, one group, without affine
  parameters, on [N, C, L], ``torch.native_group_norm``), all with random parameters.
* ``slicing``: select, slice (steps, negative bounds), narrow, unbind, chunk, split with sizes
  (their Tensor[] results taken apart by prim::ListUnpack) and ShuffleNet's channel shuffle.
* ``mha_fastpath``: nn.MultiheadAttention's fast path (``aten::_native_multi_head_attention``) with
  4 and 2 heads, bool and float key padding masks, and cross-attention.
* ``encoder_fastpath``: nn.TransformerEncoderLayer's fast path
  (``aten::_transformer_encoder_layer_fwd``): post-norm relu layers in an nn.TransformerEncoder, a
  pre-norm gelu layer, key padding masks. Both are traced in eval mode under no_grad, and the
  exporter checks that the fast-path op is in the trace.
* ``resize``: nearest and bilinear ``F.interpolate`` by sizes and by scale factors (which set
  the source coordinates), align_corners both ways, up and down.

torch 1.13 writes TorchScript debug records the scrubber cannot rewrite, so they are dropped: the
fixtures carry no source locations.

Usage: ``/usr/bin/python3 tools/export_ts_fixtures.py [OUT_DIR] [NAME ...]`` (default:
test/fixtures, every model).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import export_fixtures as ef  # noqa: E402  (the path scrubbing and the TorchScript exporter)


def randomized_bn(bn: nn.modules.batchnorm._BatchNorm) -> nn.modules.batchnorm._BatchNorm:
    """Running statistics (and affine parameters) away from 0 and 1, so the folding is tested."""
    c = bn.num_features
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn(c) * 0.5)
        bn.running_var.copy_(torch.rand(c) * 2 + 0.25)
        if bn.affine:
            bn.weight.copy_(torch.randn(c))
            bn.bias.copy_(torch.randn(c))
    return bn.eval()


class CnnOps(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bn = randomized_bn(nn.BatchNorm2d(3))
        self.bn_plain = randomized_bn(nn.BatchNorm2d(3, affine=False, eps=1e-3))
        self.bn1d = randomized_bn(nn.BatchNorm1d(3))
        self.bn_seq = randomized_bn(nn.BatchNorm1d(3))

    def forward(self, x: torch.Tensor):  # x: [2, 3, 8, 8]
        y = self.bn(x)
        a = F.max_pool2d(y, 3, stride=2, padding=1)  # [2, 3, 4, 4]
        b = F.max_pool2d(y, 3, stride=2, ceil_mode=True)  # a window running past the end
        c = F.avg_pool2d(y, 3, stride=2, padding=1, count_include_pad=False)
        d = F.avg_pool2d(y, 3, stride=2, padding=1, ceil_mode=True)  # count_include_pad
        e = F.avg_pool2d(y, (3, 2), stride=(2, 3), ceil_mode=True, divisor_override=5)
        f = F.max_pool2d(self.bn_plain(y), 2, stride=1, padding=1, dilation=2)
        g = F.adaptive_avg_pool2d(y, (3, 5))
        h = F.adaptive_max_pool2d(torch.relu(y), (3, 2))
        pooled = F.adaptive_avg_pool2d(y, 1)
        flat = pooled.view(pooled.size(0), -1)  # [2, 3]: aten::size and a shape list
        i = self.bn1d(flat)
        j = self.bn_seq(y.flatten(2))  # [2, 3, 64]
        return a + b, c, d, e, f, g, h, i, j


class Joins(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor):  # x: [2, 3, 4, 5], y: [2, 2, 4, 5]
        a = torch.cat([x, y, x], dim=1)  # [2, 8, 4, 5]
        b = torch.cat((x, torch.relu(x)), -1)  # [2, 3, 4, 10]
        c = torch.cat([y.to(torch.float64), y.to(torch.float16)], 0)  # promoted to f64
        d = F.pad(x, (1, 2, 0, 1), value=-1.5)  # W by 1 and 2, H by 0 and 1
        e = F.pad(a, (-1, 1, 2, -2))  # negative padding crops
        f = torch.constant_pad_nd(y, [0, 0, 0, 0, 1, 1], 0.25)  # channels
        return a, b, c, d, e, f


class Resize(nn.Module):
    def forward(self, x: torch.Tensor):  # x: [2, 3, 5, 6]
        return (
            F.interpolate(x, scale_factor=2, mode="nearest"),
            F.interpolate(x, size=(7, 4), mode="nearest"),
            F.interpolate(x, scale_factor=(1.5, 0.5), mode="nearest"),
            F.interpolate(x, size=(9, 13), mode="bilinear", align_corners=False),
            F.interpolate(x, size=(9, 13), mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=1.7, mode="bilinear", align_corners=False),
            F.interpolate(x, size=(1, 3), mode="bilinear", align_corners=True),
            F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=False),  # downsampling
        )


def randomized_affine(norm: nn.Module) -> nn.Module:
    """Weight and bias away from 1 and 0, so the scale and shift are tested."""
    with torch.no_grad():
        norm.weight.copy_(torch.randn_like(norm.weight))
        norm.bias.copy_(torch.randn_like(norm.bias))
    return norm


class Norms(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.channels_last_ln = randomized_affine(nn.LayerNorm(8, eps=1e-6))
        self.ln2 = randomized_affine(nn.LayerNorm((5, 6)))
        self.ln_plain = nn.LayerNorm(6, elementwise_affine=False)
        self.gn = randomized_affine(nn.GroupNorm(4, 8))
        self.gn_per_channel = randomized_affine(nn.GroupNorm(8, 8, eps=1e-3))
        self.gn_one = randomized_affine(nn.GroupNorm(1, 8))
        self.gn_plain = nn.GroupNorm(2, 8, affine=False)
        self.bias = nn.Parameter(torch.randn(6))
        self.weight8 = nn.Parameter(torch.randn(8))
        self.bias8 = nn.Parameter(torch.randn(8))

    def forward(self, x: torch.Tensor):  # x: [2, 8, 5, 6]
        a = self.channels_last_ln(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)  # ConvNeXt
        b = self.ln2(x * 3 + 100)  # far from zero: a one-pass variance would cancel
        c = self.ln_plain(x)
        d = F.layer_norm(x, (6,), None, self.bias)  # a bias without a weight
        e = torch.native_layer_norm(x, [5, 6], None, None, 1e-4)[0]
        f = self.gn(x)
        g = self.gn_per_channel(x)
        h = self.gn_one(x)
        i = self.gn_plain(x.flatten(2))  # [N, C, L]
        n, ch = x.shape[0], x.shape[1]
        j = torch.native_group_norm(x, self.weight8, self.bias8, n, ch, 30, 2, 1e-5)[0]
        return a, b, c, d, e, f, g, h, i, j


class Statistics(nn.Module):
    """Statistics composed of reductions (var, std and their _mean forms, vector norms, logsumexp,
    one_hot), instance and batch-statistics normalization, and rounding."""

    def __init__(self) -> None:
        super().__init__()
        self.instance = randomized_affine(nn.InstanceNorm2d(3, affine=True))
        self.instance_plain = nn.InstanceNorm1d(3)

    def forward(self, x: torch.Tensor, ids: torch.Tensor):  # x: [2, 3, 5, 6], ids: [2, 7] i64
        y = x * 3 + 10  # far from zero: a one-pass variance would cancel
        v = torch.var(y, dim=(2, 3), keepdim=True)
        s = torch.std(y, dim=1, unbiased=False)
        vm = torch.var_mean(y, dim=[1, 3])
        sm = torch.std_mean(y)
        n2 = torch.linalg.vector_norm(x, dim=-1)
        n1 = torch.linalg.vector_norm(x, ord=1, dim=(1, 2), keepdim=True)
        ninf = torch.linalg.vector_norm(x, ord=float("inf"))
        nminf = torch.linalg.vector_norm(x, ord=float("-inf"), dim=0)
        n0 = torch.linalg.vector_norm(torch.relu(x), ord=0, dim=3)
        n3 = torch.norm(x, p=3, dim=1)
        unit = F.normalize(x, dim=1)
        masked = x.masked_fill(x < -1, float("-inf"))
        lse = torch.logsumexp(masked, dim=-1)
        lse_all = torch.logsumexp(torch.full((2, 3), float("-inf")), dim=1, keepdim=True)
        hot = F.one_hot(ids, num_classes=9)
        inst = self.instance(x)
        inst1 = self.instance_plain(x.flatten(2))
        batch_stats = F.batch_norm(x, None, None, training=True, eps=1e-3)
        rounded = torch.stack([torch.floor(y), torch.ceil(y), torch.round(x * 2.5), torch.trunc(-y),
                               torch.sign(x), torch.round(y, decimals=2),
                               torch.round(y * 30, decimals=-1)])
        return (v, s, vm[0], vm[1], sm[0], sm[1], n2, n1, ninf, nminf, n0, n3, unit, lse, lse_all,
                hot, inst, inst1, batch_stats, rounded, torch.sign(ids - 40))


class UnaryMath(nn.Module):
    """The unary math ops beyond the activations: logs and exponentials of other bases, the
    trigonometric and hyperbolic functions, each over its domain."""

    def forward(self, x: torch.Tensor):  # x: [2, 3, 5, 6], values of randn
        positive = x.abs() + 0.05
        inside = torch.tanh(x)  # in (-1, 1): asin's and acos's domain
        return (torch.log2(positive), torch.log10(positive), torch.exp2(x * 3), torch.tan(x),
                torch.asin(inside), torch.acos(inside), torch.atan(x * 4), torch.sinh(x * 2),
                torch.cosh(x * 2))


class SegmentHead(nn.Module):
    """A segmentation model's shape: a dict output, sizes computed from x.shape in the trace."""

    def __init__(self) -> None:
        super().__init__()
        self.bn = randomized_bn(nn.BatchNorm2d(3))

    def forward(self, x: torch.Tensor):  # x: [1, 3, 6, 8]
        h, w = x.shape[-2:]
        y = F.max_pool2d(self.bn(x), 2)
        half = y.size(3) // 2  # a floor division on a size
        z = F.interpolate(y, size=(h, w), mode="bilinear", align_corners=False)
        aux = y.reshape(y.size(0), y.size(1), half, -1)
        return {"out": z, "aux": torch.cat([aux, aux], 2)}


class Slicing(nn.Module):
    def forward(self, x: torch.Tensor):  # x: [2, 6, 5, 7]
        a = x[:, 0]  # select
        b = x[..., 1::2]  # a slice with a step
        c, d, e = torch.unbind(x[:, :3], 1)
        f = x.narrow(2, 1, 3)
        g, h = torch.split(x, [1, 5], dim=1)
        i = x[:, -2:, 2:-1]
        left, right = x.chunk(2, dim=1)
        n, ch, hh, w = x.shape
        shuffled = torch.cat([left, right * 2], 1).view(n, 2, ch // 2, hh, w).transpose(1, 2)
        return a + c * d - e, b, f, g * 2, h, i, shuffled.contiguous().view(n, ch, hh, w)


def padding_masks(batch: int, length: int, lengths: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """Key padding masks marking the positions past each row's length: True (bool) or -inf
    (float) is a padded key, MASKED OUT in the fast paths."""
    pad = torch.arange(length)[None, :] >= torch.tensor(lengths)[:, None]
    assert pad.shape == (batch, length)
    return pad, torch.zeros(batch, length).masked_fill(pad, float("-inf"))


class Attention(nn.Module):
    """nn.MultiheadAttention's TorchScript fast path (eval, no grad, batch_first, self-attention,
    no attn_mask, even head count): aten::_native_multi_head_attention, with 4 and 2 heads, with
    bool and float key padding masks, its attention weights computed but unused; and the op called
    directly for cross-attention (key and value another tensor than the query)."""

    def __init__(self) -> None:
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)
        self.mha2 = nn.MultiheadAttention(16, 2, batch_first=True)
        with torch.no_grad():
            self.mha.in_proj_bias.copy_(torch.randn(48) * 0.5)
            self.mha.out_proj.bias.copy_(torch.randn(16) * 0.5)
        pad, pad_float = padding_masks(2, 6, [4, 6])
        self.register_buffer("pad", pad)
        self.register_buffer("pad_float", pad_float)

    def forward(self, x: torch.Tensor):  # x: [2, 6, 16]
        a = self.mha(x, x, x, need_weights=False)[0]
        b = self.mha(x, x, x, key_padding_mask=self.pad)[0]  # weights returned, unused
        c = self.mha2(x, x, x, key_padding_mask=self.pad_float, need_weights=False)[0]
        y = torch.cat([x[:, 3:], x[:, :3]], 1) * 2  # rolled: another tensor than x
        m = self.mha
        d = torch._native_multi_head_attention(
            x, y, y, 16, 4, m.in_proj_weight, m.in_proj_bias, m.out_proj.weight, m.out_proj.bias,
            None, False, True, None)[0]
        return a, b, c, d


class Encoder(nn.Module):
    """nn.TransformerEncoderLayer's TorchScript fast path: aten::_transformer_encoder_layer_fwd,
    in a two-layer nn.TransformerEncoder (post-norm, relu), a pre-norm gelu layer with a key
    padding mask, and an encoder without nested tensors whose layer gets the key padding mask
    (mask_type 1). LayerNorm parameters randomized."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), num_layers=2)
        self.pre_norm = nn.TransformerEncoderLayer(
            16, 2, 24, activation="gelu", norm_first=True, batch_first=True, layer_norm_eps=1e-6)
        self.padded = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), num_layers=1,
            enable_nested_tensor=False)
        for module in self.modules():
            if isinstance(module, nn.LayerNorm):
                randomized_affine(module)
        pad, _ = padding_masks(2, 6, [6, 3])
        self.register_buffer("pad", pad)

    def forward(self, x: torch.Tensor):  # x: [2, 6, 16]
        a = self.encoder(x)
        b = self.pre_norm(x, src_key_padding_mask=self.pad)
        c = self.padded(x, src_key_padding_mask=self.pad)
        return a, b, c


# Node kinds a traced model must contain: the fast paths are taken only under conditions (eval,
# no grad, batch_first, ...), and a fixture that silently fell back would test nothing.
REQUIRED_KINDS = {
    "mha_fastpath": ["aten::_native_multi_head_attention"],
    "encoder_fastpath": ["aten::_transformer_encoder_layer_fwd"],
    "unary_math": ["aten::log2", "aten::log10", "aten::exp2", "aten::tan", "aten::asin", "aten::acos",
                   "aten::atan", "aten::sinh", "aten::cosh"],
    "statistics": ["aten::var", "aten::std", "aten::var_mean", "aten::std_mean",
                   "aten::linalg_vector_norm", "aten::norm", "aten::logsumexp", "aten::one_hot",
                   "aten::instance_norm", "aten::batch_norm", "aten::floor", "aten::ceil",
                   "aten::round", "aten::trunc", "aten::sign"],
}


MODELS = {
    "cnn_ops": (CnnOps, lambda: [torch.randn(2, 3, 8, 8)]),
    "joins": (Joins, lambda: [torch.randn(2, 3, 4, 5), torch.randn(2, 2, 4, 5)]),
    "resize": (Resize, lambda: [torch.randn(2, 3, 5, 6)]),
    "slicing": (Slicing, lambda: [torch.randn(2, 6, 5, 7)]),
    "norms": (Norms, lambda: [torch.randn(2, 8, 5, 6)]),
    "dict_out": (SegmentHead, lambda: [torch.randn(1, 3, 6, 8)]),
    "statistics": (Statistics, lambda: [torch.randn(2, 3, 5, 6), torch.randint(0, 9, (2, 7))]),
    "unary_math": (UnaryMath, lambda: [torch.randn(2, 3, 5, 6)]),
    "mha_fastpath": (Attention, lambda: [torch.randn(2, 6, 16)]),
    "encoder_fastpath": (Encoder, lambda: [torch.randn(2, 6, 16)]),
}


def export_dict_model(model: nn.Module, inputs, expected, path: Path) -> None:
    """A model returning a dict: traced with strict=False (which torch needs for dict outputs),
    debug records dropped (torch 1.13's are not rewritable), its values checked in order."""
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, strict=False)
    torch.jit.save(traced, str(path))
    ef.drop_torchscript_debug_info(path)
    with torch.no_grad():
        ef.assert_same_outputs(list(torch.jit.load(str(path))(*inputs).values()), expected, path.name)
    frozen = torch.jit.freeze(torch.jit.load(str(path)).eval())
    print(f"  frozen TorchScript node kinds: {sorted({n.kind() for n in frozen.graph.nodes()})}")


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ef.DEFAULT_OUT
    only = set(sys.argv[2:])
    for name, (make, inputs_fn) in MODELS.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        model = make().eval()
        inputs = inputs_fn()
        with torch.no_grad():
            result = model(*inputs)
        # A dict's values, in insertion order, are the model's outputs.
        results = list(result.values()) if isinstance(result, dict) else ef.as_tensor_list(result)
        expected = [t.clone() for t in results]
        model_dir = out / name
        shutil.rmtree(model_dir, ignore_errors=True)
        model_dir.mkdir(parents=True)
        if isinstance(result, dict):
            export_dict_model(model, inputs, expected, model_dir / "model.pt")
        else:
            ef.export_torchscript(model, inputs, expected, model_dir / "model.pt")
        kinds = {n.kind() for n in torch.jit.load(str(model_dir / "model.pt")).inlined_graph.nodes()}
        missing = [k for k in REQUIRED_KINDS.get(name, []) if k not in kinds]
        if missing:
            print(f"{name}: the trace lacks {missing}")
            return 1
        ef.save_arrays(inputs, model_dir, "input")
        ef.save_arrays(expected, model_dir, "output")
        leaks = [hit for p in model_dir.iterdir() for hit in ef.find_absolute_paths(p.read_bytes())]
        if leaks:
            print(f"{name}: absolute paths left: {leaks}")
            return 1
        print(f"{name}: {len(expected)} outputs, torch {torch.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
