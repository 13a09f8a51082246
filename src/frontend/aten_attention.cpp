// Attention entries of the ATen table, all onto the IR's attention op (ops.def):
//
// * scaled_dot_product_attention and the forms exports record (_scaled_dot_product_flash_attention,
//   _efficient_attention, _cudnn_attention, _flash_attention_for_cpu). Only output 0 is computed;
//   the others (logsumexp, sequence offsets, philox seeds, debug masks) are ir::kNoValue, which the
//   frontends refuse, naming the value, where the model uses one.
//   q, k, v of rank >= 2 as torch's (N, ..., L, E) are brought to attention's [B, H, L, E]:
//   rank 2 [L, E] becomes [1, 1, L, E], rank 3 [N, L, E] becomes [N, 1, L, E] (no head dim), rank
//   4 is [B, H, L, E] as is, and rank > 4 flattens the leading batch dims into B; the result is
//   reshaped back. A mask is brought along the same way (padded to q's rank, its batch dims
//   expanded before they are flattened). Batch dims must be equal in q, k and v (torch's math path
//   would broadcast them; unsupported here). A bool mask keeps where true, a floating one is added
//   (cast to q's dtype first); enable_gqa lets Hq be a multiple of Hkv (kv_groups).
// * The TorchScript fast paths of nn.MultiheadAttention and nn.TransformerEncoderLayer in eval mode
//   (_native_multi_head_attention, _transformer_encoder_layer_fwd), decomposed into linear, layout
//   ops, attention, layer_norm and the FFN. Their mask is the opposite of SDPA's: a true (or
//   nonzero, for a float mask, which PyTorch 1.13 converts to bool) entry is MASKED OUT. mask_type
//   says its shape: 0 an attention mask [L, S], 1 a key padding mask [B, S], 2 any mask
//   broadcasting to [B, H, L, S]. A query row that sees no key gives zeros (PyTorch's fast path
//   gives NaN there).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Float = ArgKind::kFloat,
                  Bool = ArgKind::kBool;

Expected<ValueId> reshape_to(const Ctx& c, ValueId x, ir::Shape shape, std::string_view suffix) {
  if (c.type(x).shape == shape) return x;
  return c.build(OpKind::kReshape, {x}, attrs({{"shape", std::move(shape)}}), suffix);
}

Expected<ValueId> permute(const Ctx& c, ValueId x, ir::IntList dims, std::string_view suffix) {
  return c.build(OpKind::kPermute, {x}, attrs({{"dims", std::move(dims)}}), suffix);
}

// ---- scaled dot-product attention -----------------------------------------------------------

/// The call's attention problem: q, k, v, an optional mask, and the flags.
struct Sdpa {
  ValueId q = ir::kNoValue, k = ir::kNoValue, v = ir::kNoValue;
  std::optional<ValueId> mask;
  double dropout_p = 0;
  bool causal = false;
  std::optional<double> scale;
  bool gqa = false;
  bool mask_with_causal_is_error = true;  ///< torch's public op refuses both
};

/// `s` (rank >= 2) in attention's rank-4 form: see the file comment.
ir::Shape four_d(const ir::Shape& s) {
  const size_t r = s.size();
  if (r == 2) return {1, 1, s[0], s[1]};
  if (r == 3) return {s[0], 1, s[1], s[2]};
  int64_t batch = 1;
  for (size_t i = 0; i + 3 < r; ++i) batch *= s[i];
  return {batch, s[r - 3], s[r - 2], s[r - 1]};
}

/// The mask in the rank-4 form of the scores [B, Hq, L, S], or an invalid-input Status when it does
/// not broadcast to the scores torch computes (`scores`, q's rank).
Expected<ValueId> mask_four_d(const Ctx& c, ValueId mask, const ir::Shape& scores) {
  const ir::TensorType mt = c.type(mask);
  auto joined = ir::broadcast_shapes(mt.shape, scores);
  if (mt.rank() > static_cast<int64_t>(scores.size()) || !joined || *joined != scores) {
    return c.invalid("the mask " + mt.to_string() + " does not broadcast to the attention scores " +
                     ir::shape_to_string(scores));
  }
  const size_t r = scores.size();
  if (r <= 4 && mt.rank() <= 2) return mask;  // broadcasts as it is
  ir::Shape padded(r - static_cast<size_t>(mt.rank()), 1);
  padded.insert(padded.end(), mt.shape.begin(), mt.shape.end());
  INFERNO_ASSIGN_OR_RETURN(ValueId m, reshape_to(c, mask, padded, "mask_padded"));
  if (r > 4) {  // the batch dims flatten only once they are full
    ir::Shape full = padded;
    for (size_t i = 0; i + 3 < r; ++i) full[i] = scores[i];
    if (full != padded) {
      INFERNO_ASSIGN_OR_RETURN(
          m, c.build(OpKind::kExpand, {m}, attrs({{"shape", std::move(full)}}), "mask_batch"));
    }
  }
  return reshape_to(c, m, four_d(c.type(m).shape), "mask_4d");
}

Outputs sdpa(const Ctx& c, const Sdpa& p) {
  if (p.dropout_p != 0) {
    return c.unsupported_arg("dropout in attention (dropout_p " + std::to_string(p.dropout_p) +
                             ") is not supported");
  }
  if (p.causal && p.mask && p.mask_with_causal_is_error) {
    return c.invalid("an explicit attn_mask must not be given with is_causal=True");
  }
  const ir::TensorType qt = c.type(p.q), kt = c.type(p.k), vt = c.type(p.v);
  const int64_t r = qt.rank();
  if (r < 2 || kt.rank() != r || vt.rank() != r) {
    return c.invalid("expects query, key and value of one rank >= 2, got " + qt.to_string() + ", " +
                     kt.to_string() + " and " + vt.to_string());
  }
  if (!ir::is_floating(qt.dtype) || kt.dtype != qt.dtype || vt.dtype != qt.dtype) {
    return c.invalid("expects query, key and value of one floating dtype, got " + qt.to_string() +
                     ", " + kt.to_string() + " and " + vt.to_string());
  }
  const auto ur = static_cast<size_t>(r);
  const int64_t L = qt.shape[ur - 2], E = qt.shape[ur - 1], S = kt.shape[ur - 2];
  if (kt.shape[ur - 1] != E || vt.shape[ur - 2] != S) {
    return c.invalid("key " + kt.to_string() + " and value " + vt.to_string() +
                     " do not fit query " + qt.to_string());
  }
  // Batch dims must agree; the head dim (rank >= 4) may differ under enable_gqa.
  const size_t batch_dims = r >= 4 ? ur - 3 : ur - 2;
  for (size_t i = 0; i < batch_dims; ++i) {
    if (kt.shape[i] != qt.shape[i] || vt.shape[i] != qt.shape[i]) {
      return c.unsupported_arg("query " + qt.to_string() + ", key " + kt.to_string() +
                               " and value " + vt.to_string() +
                               " have different batch dims (broadcasting them is not supported)");
    }
  }
  int64_t groups = 1;
  if (r >= 4) {
    const int64_t hq = qt.shape[ur - 3], hk = kt.shape[ur - 3];
    if (vt.shape[ur - 3] != hk) {
      return c.invalid("key " + kt.to_string() + " and value " + vt.to_string() +
                       " have different head counts");
    }
    if (hq != hk) {
      if (!p.gqa) {
        return c.invalid("query has " + std::to_string(hq) + " heads and key/value " +
                         std::to_string(hk) + " (different head counts need enable_gqa=True)");
      }
      if (hk == 0 || hq % hk != 0) {
        return c.invalid("the " + std::to_string(hq) + " query heads are not a multiple of the " +
                         std::to_string(hk) + " key/value heads");
      }
      groups = hq / hk;
    }
  }
  const double scale = p.scale ? *p.scale : 1.0 / std::sqrt(static_cast<double>(E));
  std::vector<ValueId> in;
  for (const auto& [x, suffix] : {std::pair{p.q, "q4"}, std::pair{p.k, "k4"}, {p.v, "v4"}}) {
    INFERNO_ASSIGN_OR_RETURN(ValueId x4, reshape_to(c, x, four_d(c.type(x).shape), suffix));
    in.push_back(x4);
  }
  std::string mask_kind = "none";
  if (p.mask) {
    ValueId m = *p.mask;
    const DType md = c.type(m).dtype;
    if (md == DType::kBool) {
      mask_kind = "bool";
    } else if (ir::is_floating(md)) {
      mask_kind = "additive";
      INFERNO_ASSIGN_OR_RETURN(m, cast(c, m, qt.dtype, "mask_cast"));
    } else {
      return c.invalid("the mask must be bool or floating, got " + c.type(m).to_string());
    }
    ir::Shape scores(qt.shape.begin(), qt.shape.end() - 2);
    scores.insert(scores.end(), {L, S});
    INFERNO_ASSIGN_OR_RETURN(ValueId m4, mask_four_d(c, m, scores));
    in.push_back(m4);
  }
  INFERNO_ASSIGN_OR_RETURN(
      ValueId out4,
      c.build(
          OpKind::kAttention, std::move(in),
          attrs(
              {{"scale", scale}, {"causal", p.causal}, {"mask", mask_kind}, {"kv_groups", groups}}),
          r == 4 ? "" : "4d"));
  ir::Shape out_shape = qt.shape;
  out_shape.back() = vt.shape.back();
  return one(reshape_to(c, out4, std::move(out_shape), ""));
}

std::optional<double> opt_float(const Ctx& c, std::string_view name) {
  if (!c.a.has(name) || c.a.is_none(name)) return std::nullopt;
  return c.a.get_float(name);
}

/// A builder for one of the SDPA forms: `mask_arg` names its mask ("" for none), `outputs` is
/// how many results the op returns (only the first is computed).
Builder sdpa_form(std::string_view mask_arg, size_t outputs, bool public_op) {
  return [mask_arg, outputs, public_op](Ctx& c) -> Outputs {
    Sdpa p;
    p.q = c.a.tensor("query");
    p.k = c.a.tensor("key");
    p.v = c.a.tensor("value");
    if (!mask_arg.empty()) p.mask = c.a.opt_tensor(mask_arg);
    p.dropout_p = c.a.get_float("dropout_p");
    p.causal = c.a.get_bool("is_causal");
    p.scale = opt_float(c, "scale");
    p.gqa = c.a.has("enable_gqa") && c.a.get_bool("enable_gqa");
    p.mask_with_causal_is_error = public_op;
    INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> out, sdpa(c, p));
    out.resize(outputs, ir::kNoValue);
    return out;
  };
}

// ---- the fast paths of nn.MultiheadAttention and nn.TransformerEncoderLayer -------------------

/// x[..., begin:end] along the first dim of a weight or bias (the packed QKV projection's rows).
Expected<ValueId> weight_rows(const Ctx& c, ValueId w, int64_t begin, int64_t end,
                              std::string_view sfx) {
  const ir::Shape& s = c.type(w).shape;
  ir::IntList starts(s.size(), 0), ends = s, steps(s.size(), 1);
  starts[0] = begin;
  ends[0] = end;
  return c.build(
      OpKind::kSlice, {w},
      attrs(
          {{"starts", std::move(starts)}, {"ends", std::move(ends)}, {"steps", std::move(steps)}}),
      sfx);
}

Expected<ValueId> linear(const Ctx& c, ValueId x, ValueId w, std::optional<ValueId> b,
                         std::string_view suffix) {
  std::vector<ValueId> in = {x, w};
  if (b) in.push_back(*b);
  return c.build(OpKind::kLinear, std::move(in), {}, suffix);
}

/// The fast path's mask as attention's keep-mask (true keeps), in a shape that broadcasts to
/// [B, H, L, S], or nullopt when there is none.
Expected<std::optional<ValueId>> fast_path_mask(const Ctx& c, std::string_view prefix, int64_t B,
                                                int64_t L, int64_t S) {
  const std::optional<ValueId> mask = c.a.opt_tensor("mask");
  if (!mask) return std::optional<ValueId>{};
  if (c.a.is_none("mask_type")) return c.invalid("a mask needs a mask_type (0, 1 or 2)");
  const int64_t type = c.a.get_int("mask_type");
  const ir::TensorType mt = c.type(*mask);
  if (mt.dtype != DType::kBool && !ir::is_floating(mt.dtype))
    return c.invalid("the mask must be bool or floating, got " + mt.to_string());
  ir::Shape shape;
  if (type == 0 && mt.shape == ir::Shape{L, S}) {
    shape = {L, S};
  } else if (type == 1 && mt.shape == ir::Shape{B, S}) {
    shape = {B, 1, 1, S};
  } else if (type == 2) {
    auto joined = ir::broadcast_shapes(mt.shape, {B, 1, L, S});
    if (mt.rank() <= 4 && joined && (*joined)[0] == B && (*joined)[2] == L && (*joined)[3] == S)
      shape = mt.shape;
  } else if (type < 0 || type > 2) {
    return c.invalid("mask_type must be 0, 1 or 2, got " + std::to_string(type));
  }
  if (shape.empty()) {
    return c.invalid("a mask of mask_type " + std::to_string(type) + " must be " +
                     (type == 0   ? "[L, S] = " + ir::shape_to_string({L, S})
                      : type == 1 ? "[B, S] = " + ir::shape_to_string({B, S})
                                  : "broadcastable to [B, H, L, S]") +
                     ", got " + mt.to_string());
  }
  // A nonzero entry is masked out: keep = (mask == 0).
  const ValueId zero =
      ir::add_scalar_constant(c.g, 0, mt.dtype, c.name(std::string(prefix) + "_0"));
  INFERNO_ASSIGN_OR_RETURN(ValueId keep,
                           c.build(OpKind::kEq, {*mask, zero}, {}, std::string(prefix) + "_keep"));
  INFERNO_ASSIGN_OR_RETURN(keep, reshape_to(c, keep, shape, std::string(prefix) + "_keep_4d"));
  return std::optional<ValueId>{keep};
}

/// Multi-head attention of the fast paths: query [B, L, E], key and value [B, S, E], the packed
/// projection qkv_weight [3E, E] (and qkv_bias [3E]), the output projection. Returns [B, L, E].
Expected<ValueId> multi_head(const Ctx& c, ValueId query, ValueId key, ValueId value,
                             const std::string& prefix) {
  const int64_t E = c.a.get_int("embed_dim");
  const int64_t H = c.a.has("num_head") ? c.a.get_int("num_head") : c.a.get_int("num_heads");
  const ir::TensorType qt = c.type(query), kt = c.type(key);
  if (H <= 0 || E <= 0 || E % H != 0) {
    return c.invalid("embed_dim " + std::to_string(E) + " is not divisible by the " +
                     std::to_string(H) + " heads");
  }
  if (qt.rank() != 3 || qt.shape[2] != E || kt.rank() != 3 || kt.shape[2] != E ||
      kt.shape[0] != qt.shape[0] || c.type(value).shape != kt.shape) {
    return c.invalid("expects batched query [B, L, " + std::to_string(E) +
                     "] and key/value [B, S, " + std::to_string(E) + "] (batch_first), got " +
                     qt.to_string() + ", " + kt.to_string() + " and " + c.type(value).to_string());
  }
  if (!ir::is_floating(qt.dtype))
    return c.invalid("expects a floating query, got " + qt.to_string());
  const ValueId w = c.a.tensor("qkv_weight");
  const std::optional<ValueId> b = c.a.opt_tensor("qkv_bias");
  if (c.type(w).shape != ir::Shape{3 * E, E} || (b && c.type(*b).shape != ir::Shape{3 * E})) {
    return c.invalid(
        "qkv_weight must be [3 * embed_dim, embed_dim] and qkv_bias [3 * embed_dim], "
        "got " +
        c.type(w).to_string() + (b ? " and " + c.type(*b).to_string() : ""));
  }
  const int64_t B = qt.shape[0], L = qt.shape[1], S = kt.shape[1], D = E / H;
  std::vector<ValueId> qkv;
  if (query == key && key == value) {  // self-attention: one GEMM, then split
    INFERNO_ASSIGN_OR_RETURN(ValueId packed, linear(c, query, w, b, prefix + "_qkv"));
    for (int64_t i = 0; i < 3; ++i) {
      const ir::Shape& s = c.type(packed).shape;
      ir::IntList starts = {0, 0, i * E}, ends = s, steps = {1, 1, 1};
      ends[2] = (i + 1) * E;
      INFERNO_ASSIGN_OR_RETURN(
          ValueId part, c.build(OpKind::kSlice, {packed},
                                attrs({{"starts", starts}, {"ends", ends}, {"steps", steps}}),
                                prefix + "_qkv" + std::to_string(i)));
      qkv.push_back(part);
    }
  } else {
    const ValueId inputs[3] = {query, key, value};
    for (int64_t i = 0; i < 3; ++i) {
      const std::string n = prefix + "_proj" + std::to_string(i);
      INFERNO_ASSIGN_OR_RETURN(ValueId wi, weight_rows(c, w, i * E, (i + 1) * E, n + "_w"));
      std::optional<ValueId> bi;
      if (b) {
        INFERNO_ASSIGN_OR_RETURN(bi, weight_rows(c, *b, i * E, (i + 1) * E, n + "_b"));
      }
      INFERNO_ASSIGN_OR_RETURN(ValueId part, linear(c, inputs[i], wi, bi, n));
      qkv.push_back(part);
    }
  }
  std::vector<ValueId> heads;  // each [B, H, len, D]
  for (size_t i = 0; i < 3; ++i) {
    const int64_t len = i == 0 ? L : S;
    const std::string n = prefix + "_heads" + std::to_string(i);
    INFERNO_ASSIGN_OR_RETURN(ValueId split, reshape_to(c, qkv[i], {B, len, H, D}, n + "_split"));
    INFERNO_ASSIGN_OR_RETURN(ValueId h, permute(c, split, {0, 2, 1, 3}, n));
    heads.push_back(h);
  }
  INFERNO_ASSIGN_OR_RETURN(std::optional<ValueId> keep,
                           fast_path_mask(c, prefix + "_mask", B, L, S));
  if (keep) heads.push_back(*keep);
  INFERNO_ASSIGN_OR_RETURN(ValueId att,
                           c.build(OpKind::kAttention, std::move(heads),
                                   attrs({{"scale", 1.0 / std::sqrt(static_cast<double>(D))},
                                          {"causal", false},
                                          {"mask", std::string(keep ? "bool" : "none")},
                                          {"kv_groups", int64_t{1}}}),
                                   prefix + "_attention"));
  INFERNO_ASSIGN_OR_RETURN(ValueId merged, permute(c, att, {0, 2, 1, 3}, prefix + "_merge"));
  INFERNO_ASSIGN_OR_RETURN(merged, reshape_to(c, merged, {B, L, E}, prefix + "_merged"));
  return linear(c, merged, c.a.tensor("proj_weight"), c.a.opt_tensor("proj_bias"), prefix + "_out");
}

// _native_multi_head_attention(...) -> (out, weights): weights are not computed.
Outputs native_multi_head_attention(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(ValueId out, multi_head(c, c.a.tensor("query"), c.a.tensor("key"),
                                                   c.a.tensor("value"), "mha"));
  return std::vector<ValueId>{out, ir::kNoValue};
}

Expected<ValueId> layer_norm(const Ctx& c, ValueId x, std::string_view weight,
                             std::string_view bias, std::string_view suffix) {
  const DType dtype = c.type(x).dtype;
  INFERNO_ASSIGN_OR_RETURN(ValueId w,
                           cast(c, c.a.tensor(weight), dtype, std::string(suffix) + "_w"));
  INFERNO_ASSIGN_OR_RETURN(ValueId b, cast(c, c.a.tensor(bias), dtype, std::string(suffix) + "_b"));
  const int64_t E = c.type(x).shape.back();
  if (c.type(w).shape != ir::Shape{E} || c.type(b).shape != ir::Shape{E}) {
    return c.invalid("the layer norm parameters " + c.type(w).to_string() + " and " +
                     c.type(b).to_string() + " must be [" + std::to_string(E) + "]");
  }
  return c.build(OpKind::kLayerNorm, {x, w, b},
                 attrs({{"normalized_dims", int64_t{1}}, {"eps", c.a.get_float("eps")}}), suffix);
}

Expected<ValueId> feed_forward(const Ctx& c, ValueId x) {
  INFERNO_ASSIGN_OR_RETURN(
      ValueId h, linear(c, x, c.a.tensor("ffn_weight_1"), c.a.opt_tensor("ffn_bias_1"), "ffn1"));
  INFERNO_ASSIGN_OR_RETURN(
      h, c.build(c.a.get_bool("use_gelu") ? OpKind::kGelu : OpKind::kRelu, {h}, {}, "ffn_act"));
  return linear(c, h, c.a.tensor("ffn_weight_2"), c.a.opt_tensor("ffn_bias_2"), "ffn2");
}

// _transformer_encoder_layer_fwd: nn.TransformerEncoderLayer.forward without dropout.
//   norm_first: x = x + sa(norm1(x)); x = x + ff(norm2(x))
//   otherwise:  x = norm1(x + sa(x)); x = norm2(x + ff(x))
Outputs transformer_encoder_layer(Ctx& c) {
  const ValueId src = c.a.tensor("src");
  const bool norm_first = c.a.get_bool("norm_first");
  ValueId x = src;
  if (norm_first) {
    INFERNO_ASSIGN_OR_RETURN(ValueId n1, layer_norm(c, x, "norm_weight_1", "norm_bias_1", "norm1"));
    INFERNO_ASSIGN_OR_RETURN(ValueId sa, multi_head(c, n1, n1, n1, "sa"));
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kAdd, {x, sa}, {}, "sa_residual"));
    INFERNO_ASSIGN_OR_RETURN(ValueId n2, layer_norm(c, x, "norm_weight_2", "norm_bias_2", "norm2"));
    INFERNO_ASSIGN_OR_RETURN(ValueId ff, feed_forward(c, n2));
    return one(c.build(OpKind::kAdd, {x, ff}, {}, ""));
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId sa, multi_head(c, x, x, x, "sa"));
  INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kAdd, {x, sa}, {}, "sa_residual"));
  INFERNO_ASSIGN_OR_RETURN(x, layer_norm(c, x, "norm_weight_1", "norm_bias_1", "norm1"));
  INFERNO_ASSIGN_OR_RETURN(ValueId ff, feed_forward(c, x));
  INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kAdd, {x, ff}, {}, "ff_residual"));
  return one(layer_norm(c, x, "norm_weight_2", "norm_bias_2", ""));
}

}  // namespace

void add_attention_entries(std::vector<OpEntry>& table) {
  const ArgDef q = arg("query", T), k = arg("key", T), v = arg("value", T);
  const ArgDef dropout = arg("dropout_p", Float, 0.0), causal = arg("is_causal", Bool, false),
               scale = opt("scale", Float);
  const std::vector<OpEntry> rows = {
      // scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
      //   is_causal=False, *, scale=None, enable_gqa=False) -> Tensor
      {"aten::scaled_dot_product_attention",
       "",
       {q, k, v, opt("attn_mask", T), dropout, causal, scale, arg("enable_gqa", Bool, false)},
       sdpa_form("attn_mask", 1, true)},
      // _scaled_dot_product_flash_attention(query, key, value, dropout_p=0.0, is_causal=False,
      //   return_debug_mask=False, *, scale=None) -> (output, logsumexp, cum_seq_q, cum_seq_k,
      //   max_q, max_k, rng_state, unused, debug_attn_mask)
      {"aten::_scaled_dot_product_flash_attention",
       "",
       {q, k, v, dropout, causal, arg("return_debug_mask", Bool, false), scale},
       sdpa_form("", 9, false)},
      // _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0,
      //   is_causal=False, *, attn_mask=None, scale=None) -> (output, logsumexp)
      {"aten::_scaled_dot_product_flash_attention_for_cpu",
       "",
       {q, k, v, dropout, causal, opt("attn_mask", T), scale},
       sdpa_form("attn_mask", 2, false)},
      // _scaled_dot_product_efficient_attention(query, key, value, attn_bias, compute_log_sumexp,
      //   dropout_p=0.0, is_causal=False, *, scale=None) -> (output, log_sumexp, philox_seed,
      //   philox_offset)
      {"aten::_scaled_dot_product_efficient_attention",
       "",
       {q, k, v, opt("attn_bias", T), arg("compute_log_sumexp", Bool), dropout, causal, scale},
       sdpa_form("attn_bias", 4, false)},
      // _scaled_dot_product_cudnn_attention(query, key, value, attn_bias, compute_log_sumexp,
      //   dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale=None) -> (output,
      //   logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset,
      //   debug_attn_mask)
      {"aten::_scaled_dot_product_cudnn_attention",
       "",
       {q, k, v, opt("attn_bias", T), arg("compute_log_sumexp", Bool), dropout, causal,
        arg("return_debug_mask", Bool, false), scale},
       sdpa_form("attn_bias", 9, false)},
      {"aten::_native_multi_head_attention",
       "",
       {q, k, v, arg("embed_dim", Int), arg("num_head", Int), arg("qkv_weight", T),
        arg("qkv_bias", T), arg("proj_weight", T), arg("proj_bias", T), opt("mask", T),
        arg("need_weights", Bool, true), arg("average_attn_weights", Bool, true),
        opt("mask_type", Int)},
       native_multi_head_attention},
      {"aten::_transformer_encoder_layer_fwd",
       "",
       {arg("src", T),           arg("embed_dim", Int),   arg("num_heads", Int),
        arg("qkv_weight", T),    arg("qkv_bias", T),      arg("proj_weight", T),
        arg("proj_bias", T),     arg("use_gelu", Bool),   arg("norm_first", Bool),
        arg("eps", Float),       arg("norm_weight_1", T), arg("norm_bias_1", T),
        arg("norm_weight_2", T), arg("norm_bias_2", T),   arg("ffn_weight_1", T),
        arg("ffn_bias_1", T),    arg("ffn_weight_2", T),  arg("ffn_bias_2", T),
        opt("mask", T),          opt("mask_type", Int)},
       transformer_encoder_layer},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
