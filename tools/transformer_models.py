"""Transformer architectures written with plain torch.nn, as the models people deploy write them,
for the zoo (tools/export_zoo.py, TorchScript traced by the distribution's torch 1.13) and the
.pt2 fixtures (tools/export_fixtures.py, torch 2.x). Sizes are small so the CPU reference stays
fast; every structural feature of the real model is kept:

* ``Gpt2``: token and position embeddings, pre-norm blocks with one fused ``c_attn`` projection
  (``addmm`` over a [in, out] weight, as GPT-2's Conv1D), a causal bool ``tril`` buffer applied by
  ``where`` with the dtype's minimum, GELU-tanh written out as GPT-2 writes it, a final norm and a
  head tied to the token embedding.
* ``Bert``: word, position and token-type embeddings with a norm, post-norm encoder layers, an
  additive padding mask made from an integer attention mask, erf GELU, a tanh pooler.
* ``LlamaBlock``: RMSNorm with a float32 upcast, rotary position embeddings by rotate-half,
  grouped-query attention (k/v heads repeated by expand + reshape), an additive causal mask,
  SwiGLU.
* ``transformer_encoder``: ``nn.TransformerEncoder`` in eval mode (its fast path when traced).
* ``vit``: torchvision's ``VisionTransformer`` at a small configuration.

Token inputs are int64 ids; everything is seeded by the caller.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's GELU-tanh, term by term."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Conv1D(nn.Module):
    """GPT-2's projection: x @ W + b with W of shape [in, out]."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.02)
        self.bias = nn.Parameter(torch.randn(n_out) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size_out = x.size()[:-1] + (self.weight.size(-1),)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class Gpt2Attention(nn.Module):
    def __init__(self, width: int, heads: int, positions: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, width // heads
        self.c_attn = Conv1D(width, 3 * width)
        self.c_proj = Conv1D(width, width)
        causal = torch.tril(torch.ones(positions, positions, dtype=torch.bool))
        self.register_buffer("bias", causal.view(1, 1, positions, positions), persistent=False)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.c_attn(x).split(self.heads * self.head_dim, dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        s_q, s_k = q.size(-2), k.size(-2)
        mask = self.bias[:, :, s_k - s_q : s_k, :s_k]
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype, device=w.device))
        w = F.softmax(w, dim=-1)
        y = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        return self.c_proj(y.view(y.size()[:-2] + (self.heads * self.head_dim,)))


class Gpt2Block(nn.Module):
    def __init__(self, width: int, heads: int, positions: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(width, eps=1e-5)
        self.attn = Gpt2Attention(width, heads, positions)
        self.ln_2 = nn.LayerNorm(width, eps=1e-5)
        self.c_fc = Conv1D(width, 4 * width)
        self.c_proj = Conv1D(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(gelu_new(self.c_fc(self.ln_2(x))))


class Gpt2(nn.Module):
    def __init__(self, vocab: int = 512, positions: int = 64, width: int = 64, heads: int = 4,
                 layers: int = 2) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(positions, width)
        self.h = nn.ModuleList(Gpt2Block(width, heads, positions) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width, eps=1e-5)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(0, ids.size(-1), dtype=torch.long, device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)  # the head tied to the token embedding


class BertLayer(nn.Module):
    def __init__(self, width: int, heads: int, inner: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, width // heads
        self.query, self.key, self.value = (nn.Linear(width, width) for _ in range(3))
        self.attn_out = nn.Linear(width, width)
        self.attn_norm = nn.LayerNorm(width, eps=1e-12)
        self.intermediate = nn.Linear(width, inner)
        self.output = nn.Linear(inner, width)
        self.out_norm = nn.LayerNorm(width, eps=1e-12)

    def heads_of(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size(0), x.size(1), self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor, additive_mask: torch.Tensor) -> torch.Tensor:
        q, k, v = self.heads_of(self.query(x)), self.heads_of(self.key(x)), self.heads_of(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = F.softmax(scores + additive_mask, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(x.size(0), x.size(1), self.heads * self.head_dim)
        x = self.attn_norm(self.attn_out(ctx) + x)
        return self.out_norm(self.output(F.gelu(self.intermediate(x))) + x)


class Bert(nn.Module):
    def __init__(self, vocab: int = 512, positions: int = 64, width: int = 64, heads: int = 4,
                 layers: int = 2, inner: int = 128) -> None:
        super().__init__()
        self.word = nn.Embedding(vocab, width)
        self.position = nn.Embedding(positions, width)
        self.token_type = nn.Embedding(2, width)
        self.norm = nn.LayerNorm(width, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(width, heads, inner) for _ in range(layers))
        self.pooler = nn.Linear(width, width)

    def forward(self, ids: torch.Tensor, attention_mask: torch.Tensor):
        seq = ids.size(1)
        positions = torch.arange(seq, dtype=torch.long, device=ids.device).unsqueeze(0)
        types = torch.zeros_like(ids)
        x = self.norm(self.word(ids) + self.position(positions) + self.token_type(types))
        additive = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, additive)
        return x, torch.tanh(self.pooler(x[:, 0]))


class RmsNorm(nn.Module):
    def __init__(self, width: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(width))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    """One decoder layer over hidden states [B, S, width]."""

    def __init__(self, width: int = 64, heads: int = 4, kv_heads: int = 2, inner: int = 128,
                 theta: float = 10000.0) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, width // heads
        self.input_norm = RmsNorm(width)
        self.q_proj = nn.Linear(width, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(width, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(width, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, width, bias=False)
        self.post_norm = RmsNorm(width)
        self.gate_proj = nn.Linear(width, inner, bias=False)
        self.up_proj = nn.Linear(width, inner, bias=False)
        self.down_proj = nn.Linear(inner, width, bias=False)
        inv_freq = 1.0 / (theta ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def repeat_kv(self, x: torch.Tensor) -> torch.Tensor:
        b, h, s, d = x.shape
        groups = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, h, groups, s, d).reshape(b, h * groups, s, d)

    def attention(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        positions = torch.arange(s, dtype=torch.float32, device=x.device)
        freqs = torch.outer(positions, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None].to(x.dtype), emb.sin()[None, None].to(x.dtype)  # as HF Llama
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        causal = torch.full((s, s), float("-inf"), device=x.device).triu(1)
        probs = F.softmax((scores + causal).to(torch.float32), dim=-1).to(q.dtype)
        y = torch.matmul(probs, v).transpose(1, 2).contiguous().view(b, s, -1)
        return self.o_proj(y)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.input_norm(x))
        h = self.post_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def transformer_encoder(width: int = 64, heads: int = 4, inner: int = 128, layers: int = 2) -> nn.Module:
    layer = nn.TransformerEncoderLayer(width, heads, inner, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


def vit() -> nn.Module:
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64,
                             mlp_dim=128, num_classes=10)


def token_ids(batch: int, seq: int, vocab: int = 512) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, seq), dtype=torch.long)


def padding_mask(batch: int, seq: int) -> torch.Tensor:
    """1 for real tokens, 0 for padding: the last quarter of every row but the first is padding."""
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[1:, seq - seq // 4 :] = 0
    return mask
