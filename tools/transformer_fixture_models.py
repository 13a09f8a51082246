"""The transformer fixtures of tools/export_fixtures.py (kept apart to keep that file short), in
both .pt2 forms: the plain export keeps scaled_dot_product_attention, layer_norm, embedding and the
other composite ops; the core-ATen form decomposes them.

* ``SdpaForms``: torch's attention entry point in its variants: no mask, is_causal, a bool mask
  buffer, an additive mask input broadcast over heads and queries with an explicit scale, and
  grouped-query attention (enable_gqa), over sequences that are no multiple of a kernel tile.
  TorchScript is not exported (LibTorch 1.13 predates scaled_dot_product_attention).
* ``gpt2_tiny``, ``llama_tiny``: the zoo's architectures (tools/transformer_models.py) at tiny
  sizes; GPT-2 takes int64 token ids.
* ``EncoderLayers``: ``nn.TransformerEncoderLayer`` (post-norm, relu) then a pre-norm GELU one,
  and ``nn.MultiheadAttention`` with a key padding mask, as torch.export records them.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

import transformer_models


class SdpaForms(nn.Module):
    """Inputs q, k, v [2, 4, 37, 16] and an additive mask [2, 1, 1, 37]."""

    def __init__(self, seq: int = 37) -> None:
        super().__init__()
        keep = torch.rand(seq, seq) > 0.3
        keep |= torch.eye(seq, dtype=torch.bool)  # every query keeps at least one key
        self.register_buffer("keep", keep)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor):
        plain = F.scaled_dot_product_attention(q, k, v)
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        masked = F.scaled_dot_product_attention(q, k, v, attn_mask=self.keep)
        additive = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3)
        grouped = F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], is_causal=True, enable_gqa=True)
        return plain, causal, masked, additive, grouped


def gpt2_tiny() -> nn.Module:
    return transformer_models.Gpt2(vocab=128, positions=32, width=32, heads=4, layers=1)


def llama_tiny() -> nn.Module:
    return transformer_models.LlamaBlock(width=32, heads=4, kv_heads=2, inner=64)


class EncoderLayers(nn.Module):
    """Input x [2, 13, 32] and a key padding mask [2, 13] (bool, True = padding)."""

    def __init__(self, width: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.post = nn.TransformerEncoderLayer(width, heads, 64, dropout=0.0, batch_first=True)
        self.pre = nn.TransformerEncoderLayer(width, heads, 64, dropout=0.0, activation="gelu",
                                              batch_first=True, norm_first=True)
        self.mha = nn.MultiheadAttention(width, heads, batch_first=True)

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        x = self.pre(self.post(x))
        y, _ = self.mha(x, x, x, key_padding_mask=padding, need_weights=False)
        return y


def gpt2_inputs(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 128, (1, 20), generator=gen, dtype=torch.long),)


def sdpa_inputs(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    q, k, v = (torch.randn(2, 4, 37, 16, generator=gen) for _ in range(3))
    bias = torch.randn(2, 1, 1, 37, generator=gen)
    bias[1, 0, 0, 30:] = float("-inf")  # padding keys of the second sequence
    return q, k, v, bias


def encoder_inputs(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    padding = torch.zeros(2, 13, dtype=torch.bool)
    padding[1, 10:] = True
    return torch.randn(2, 13, 32, generator=gen), padding
