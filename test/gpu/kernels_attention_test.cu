// attention (kernels/attention.cuh) against softmax(scale * q @ k^T + mask) @ v computed on the
// host in double from the same (rounded) inputs, for f32, f16, bf16 and f64: no mask, causal (Sq
// equal to, shorter and longer than Skv), grouped-query attention with 2 and 4 query heads per kv
// head, bool and additive masks of broadcast shapes ([B, 1, 1, Skv], [Sq, Skv], [Skv], the full
// [B, Hq, Sq, Skv]), rows that see no key (every key masked off, or every score -inf: zeros),
// sequences of 1, 77 and 130 (not multiples of any tile) up to 512, head dims 64 and 128 (the
// fast tiles), 32, 80, 200 (padded tiles), d != dv and dims that are not multiples of 8 (the
// element-wise loads), and q, k, v and out as strided views: a fused QKV projection's
// [B, S, Hq + 2 Hkv, D] output read in place (written back as [B, S, Hq, Dv]), and rows padded to
// odd strides from a misaligned base. The gaps between a view's rows hold NaN, so a kernel that
// reads outside its rows fails, and the output's gaps must still be NaN afterwards. One case runs
// twice and must repeat bit for bit, and a launch captured into a CUDA graph must replay the
// eager result bit for bit. The launcher's argument checks are tested too.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "kernels/attention.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

namespace k = inferno::kernels;

enum class Views { kContiguous, kFusedQkv, kPadded };
enum Mask { kNoMask = 0, kBoolMask = 1, kAdditiveMask = 2 };

struct Case {
  int64_t batch, heads, kv_heads, sq, skv, d, dv;
  bool causal;
  Mask mask;
  std::vector<int64_t> mask_shape;  // right-aligned against [B, Hq, Sq, Skv]
  int64_t dead_row;                 // a query row whose every mask entry drops its key (-1: none)
  Views views;
  int64_t live_keys = -1;  // bool mask: keys [0, live_keys) kept, as a KV cache's (-1: random)
};

// A strided [B, H, S, E] operand in a host buffer of NaN, its elements from `base` on.
template <typename T>
struct View {
  k::AttentionLayout layout;
  int64_t base;
  int64_t at(int64_t b, int64_t h, int64_t s, int64_t e) const {
    return base + b * layout.batch + h * layout.head + s * layout.seq + e;
  }
};

template <typename T>
View<T> contiguous(int64_t heads, int64_t seq, int64_t e) {
  return {{heads * seq * e, seq * e, e}, 0};
}
// Rows padded to an odd stride, heads and batches apart by a few more elements, from element 1.
template <typename T>
View<T> padded(int64_t heads, int64_t seq, int64_t e) {
  const int64_t row = e + 3, head = seq * row + 5;
  return {{heads * head + 7, head, row}, 1};
}

// Worst-case error of the kernels on top of the output's own rounding, as an absolute tolerance
// per unit of max |v| (each output is a weighted mean of v's rows):
//  - f32: the FMA path keeps everything in float. The scores' relative error is about d * 2^-24
//    (a few 1e-6 for d = 200, worse for the largest scores), which moves each weight by that
//    times the score, and the weighted sum over up to 2048 keys adds a few ulps: 1e-5 absolute
//    covers it with margin for |v| <= 2.
//  - f16 / bf16: the tensor-core path rounds the softmax weights to T as P @ V's operand (a
//    relative error of the unit roundoff, 2^-11 or 2^-8, per weight), which moves an output by up
//    to that times max |v|: rtol times max |v| covers it (1e-3, 1.6e-2).
//  - f64: everything in double.
template <typename T>
Tolerance attention_tolerance(double v_max) {
  Tolerance t = tolerance<T>();
  if constexpr (std::is_same_v<T, float>) {
    t.atol = 1e-5;
  } else if constexpr (!std::is_same_v<T, double>) {
    t.atol = std::max(t.atol, t.rtol * v_max);
  }
  return t;
}

std::string describe(const char* type, const Case& c) {
  char text[256];
  std::snprintf(
      text, sizeof text,
      "attention %s B %lld Hq %lld Hkv %lld Sq %lld Skv %lld d %lld dv %lld%s mask %d%s%s", type,
      static_cast<long long>(c.batch), static_cast<long long>(c.heads),
      static_cast<long long>(c.kv_heads), static_cast<long long>(c.sq),
      static_cast<long long>(c.skv), static_cast<long long>(c.d), static_cast<long long>(c.dv),
      c.causal ? " causal" : "", static_cast<int>(c.mask),
      c.dead_row >= 0 ? " (a row sees no key)" : "",
      c.views == Views::kFusedQkv ? " fused QKV views"
      : c.views == Views::kPadded ? " padded misaligned views"
                                  : "");
  return text;
}

template <typename T, int kHead>
void check_attention(const Case& c, std::mt19937_64& rng, bool twice) {
  const std::string name = describe(dtype_name<T>(), c);
  const T nan = from_double<T>(std::numeric_limits<double>::quiet_NaN());
  // The operands' views and buffers (one buffer for all three in the fused layout).
  View<T> qv, kv, vv, ov;
  size_t q_size, k_size, v_size, out_size;
  auto extent = [](const View<T>& v, int64_t b, int64_t h, int64_t s, int64_t e) {
    return static_cast<size_t>(v.at(b - 1, h - 1, s - 1, e - 1) + 1);
  };
  if (c.views == Views::kFusedQkv) {
    // [B, S, Hq + 2 Hkv, D]: q's heads first, then k's, then v's (Sq == Skv, d == dv).
    const int64_t width = (c.heads + 2 * c.kv_heads) * c.d;
    qv = {{c.sq * width, c.d, width}, 0};
    kv = {{c.sq * width, c.d, width}, c.heads * c.d};
    vv = {{c.sq * width, c.d, width}, (c.heads + c.kv_heads) * c.d};
    ov = {{c.sq * c.heads * c.dv, c.dv, c.heads * c.dv}, 0};  // [B, S, Hq, Dv]
    q_size = k_size = v_size = static_cast<size_t>(c.batch * c.sq * width);
  } else {
    const bool pad = c.views == Views::kPadded;
    qv = pad ? padded<T>(c.heads, c.sq, c.d) : contiguous<T>(c.heads, c.sq, c.d);
    kv = pad ? padded<T>(c.kv_heads, c.skv, c.d) : contiguous<T>(c.kv_heads, c.skv, c.d);
    vv = pad ? padded<T>(c.kv_heads, c.skv, c.dv) : contiguous<T>(c.kv_heads, c.skv, c.dv);
    ov = pad ? padded<T>(c.heads, c.sq, c.dv) : contiguous<T>(c.heads, c.sq, c.dv);
    q_size = extent(qv, c.batch, c.heads, c.sq, c.d);
    k_size = extent(kv, c.batch, c.kv_heads, c.skv, c.d);
    v_size = extent(vv, c.batch, c.kv_heads, c.skv, c.dv);
  }
  out_size = extent(ov, c.batch, c.heads, c.sq, c.dv);
  std::vector<T> qh(q_size, nan), kh(k_size, nan), vh(v_size, nan);
  std::uniform_real_distribution<double> unit(-1, 1);
  auto fill = [&](std::vector<T>& host, const View<T>& view, int64_t heads, int64_t seq,
                  int64_t e) {
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t s = 0; s < seq; ++s)
          for (int64_t x = 0; x < e; ++x)
            host[static_cast<size_t>(view.at(b, h, s, x))] = from_double<T>(unit(rng));
  };
  // The fused layout keeps all three in q's buffer.
  std::vector<T>& qbuf = qh;
  std::vector<T>& kbuf = c.views == Views::kFusedQkv ? qh : kh;
  std::vector<T>& vbuf = c.views == Views::kFusedQkv ? qh : vh;
  fill(qbuf, qv, c.heads, c.sq, c.d);
  fill(kbuf, kv, c.kv_heads, c.skv, c.d);
  fill(vbuf, vv, c.kv_heads, c.skv, c.dv);

  // The mask, contiguous in its own shape, and its strides against [B, Hq, Sq, Skv].
  k::AttentionMask mask{nullptr, static_cast<int>(c.mask), {0, 0, 0, 0}};
  std::vector<double> mask_values;
  if (c.mask != kNoMask) {
    const size_t rank = c.mask_shape.size();
    int64_t numel = 1;
    for (size_t d = rank; d-- > 0;) {
      const size_t dim = 4 - rank + d;
      mask.strides[dim] = c.mask_shape[d] == 1 ? 0 : numel;
      numel *= c.mask_shape[d];
    }
    const int64_t rows = rank >= 2 ? c.mask_shape[rank - 2] : 1;
    for (int64_t i = 0; i < numel; ++i) {
      const bool dead = c.dead_row >= 0 && (i / c.mask_shape.back()) % rows == c.dead_row;
      if (c.mask == kBoolMask) {
        const bool keep =
            c.live_keys >= 0 ? i % c.mask_shape.back() < c.live_keys : unit(rng) > -0.5;
        mask_values.push_back(!dead && keep ? 1 : 0);
      } else {
        const double inf = std::numeric_limits<double>::infinity();
        mask_values.push_back(dead || i % 7 == 3 ? -inf : to_double(from_double<T>(unit(rng))));
      }
    }
  }
  std::vector<uint8_t> mask_bytes;
  std::vector<T> mask_t;
  for (const double m : mask_values) {
    mask_bytes.push_back(m != 0 ? 1 : 0);
    mask_t.push_back(from_double<T>(m));
  }
  DeviceBuffer<uint8_t> mask_bool(mask_bytes);
  DeviceBuffer<T> mask_add(mask_t);
  if (c.mask == kBoolMask) mask.data = mask_bool.get();
  if (c.mask == kAdditiveMask) mask.data = mask_add.get();

  // Expected, [B, Hq, Sq, Dv] contiguous.
  const double scale = 1 / std::sqrt(static_cast<double>(c.d));
  const int64_t groups = c.heads / c.kv_heads;
  std::vector<double> want(static_cast<size_t>(c.batch * c.heads * c.sq * c.dv), 0.0);
  double v_max = 0;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.kv_heads; ++h)
      for (int64_t s = 0; s < c.skv; ++s)
        for (int64_t x = 0; x < c.dv; ++x)
          v_max =
              std::max(v_max, std::fabs(to_double(vbuf[static_cast<size_t>(vv.at(b, h, s, x))])));
  std::vector<double> logits(static_cast<size_t>(c.skv));
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t g = h / groups;
      for (int64_t i = 0; i < c.sq; ++i) {
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < c.skv; ++j) {
          double s = -std::numeric_limits<double>::infinity();
          const int64_t coords[4] = {b, h, i, j};
          int64_t m_at = 0;
          for (int d = 0; d < 4; ++d) m_at += coords[d] * mask.strides[d];
          const bool kept = (!c.causal || j <= i) &&
                            (c.mask != kBoolMask || mask_values[static_cast<size_t>(m_at)] != 0);
          if (kept) {
            double dot = 0;
            for (int64_t x = 0; x < c.d; ++x) {
              dot += to_double(qbuf[static_cast<size_t>(qv.at(b, h, i, x))]) *
                     to_double(kbuf[static_cast<size_t>(kv.at(b, g, j, x))]);
            }
            s = dot * scale;
            if (c.mask == kAdditiveMask) s += mask_values[static_cast<size_t>(m_at)];
          }
          logits[static_cast<size_t>(j)] = s;
          top = std::max(top, s);
        }
        if (top == -std::numeric_limits<double>::infinity()) continue;  // zeros
        double total = 0;
        std::vector<double> acc(static_cast<size_t>(c.dv), 0.0);
        for (int64_t j = 0; j < c.skv; ++j) {
          const double p = std::exp(logits[static_cast<size_t>(j)] - top);
          total += p;
          for (int64_t x = 0; x < c.dv; ++x)
            acc[static_cast<size_t>(x)] +=
                p * to_double(vbuf[static_cast<size_t>(vv.at(b, g, j, x))]);
        }
        for (int64_t x = 0; x < c.dv; ++x)
          want[static_cast<size_t>(((b * c.heads + h) * c.sq + i) * c.dv + x)] =
              acc[static_cast<size_t>(x)] / total;
      }
    }
  }

  DeviceBuffer<T> qd(qbuf), kd(c.views == Views::kFusedQkv ? qbuf : kbuf),
      vd(c.views == Views::kFusedQkv ? qbuf : vbuf), od(out_size);
  const T* qp = qd.get() + qv.base;
  const T* kp = (c.views == Views::kFusedQkv ? qd.get() : kd.get()) + kv.base;
  const T* vp = (c.views == Views::kFusedQkv ? qd.get() : vd.get()) + vv.base;
  T* op = od.get() + ov.base;
  const k::AttentionDims dims{c.batch, c.heads, c.kv_heads, c.sq, c.skv, c.d, c.dv};
  // Odd query rows: the decode kernel as a dependent launch (it awaits the kernels before it
  // first), unless INFERNO_ATTENTION_DEPENDENT=0 forbids one; other kernels ignore the setting.
  const k::AttentionDecodeLaunch decode{c.sq % 2 == 1};
  std::vector<T> first;
  for (int run = 0; run < (twice ? 2 : 1); ++run) {
    od.poison();
    const cudaError_t launched =
        k::attention<T, kHead>(qp, kp, vp, op, dims, qv.layout, kv.layout, vv.layout, ov.layout,
                               mask, scale, c.causal, g_stream, decode);
    if (!expect_launch(launched, name)) return;
    const std::vector<T> all = od.download();
    if (run == 1) {
      expect_bitwise_equal(name + " (second run)", all, first);
      break;
    }
    first = all;
    std::vector<T> got;
    std::vector<size_t> in_view(all.size(), 0);
    for (int64_t b = 0; b < c.batch; ++b)
      for (int64_t h = 0; h < c.heads; ++h)
        for (int64_t i = 0; i < c.sq; ++i)
          for (int64_t x = 0; x < c.dv; ++x) {
            const auto at = static_cast<size_t>(ov.at(b, h, i, x));
            got.push_back(all[at]);
            in_view[at] = 1;
          }
    expect_close(name, got, want, attention_tolerance<T>(v_max));
    size_t touched = 0;
    for (size_t i = 0; i < all.size(); ++i)
      touched += in_view[i] == 0 && !std::isnan(to_double(all[i])) ? 1 : 0;
    expect(touched == 0, name + ": nothing written outside the output view",
           std::to_string(touched) + " elements written");
  }
}

template <typename T>
void check_case(const Case& c, std::mt19937_64& rng, bool twice = false) {
  switch (k::attention_head_tile(c.d, c.dv)) {
    case 32:
      check_attention<T, 32>(c, rng, twice);
      break;
    case 64:
      check_attention<T, 64>(c, rng, twice);
      break;
    case 128:
      check_attention<T, 128>(c, rng, twice);
      break;
    default:
      check_attention<T, 256>(c, rng, twice);
      break;
  }
}

template <typename T>
void attention_cases(bool all) {
  std::mt19937_64 rng(23);
  using V = Views;
  const std::vector<Case> cases = {
      {2, 4, 4, 130, 130, 64, 64, false, kNoMask, {}, -1, V::kContiguous},
      {1, 2, 2, 77, 77, 128, 128, true, kNoMask, {}, -1, V::kContiguous},
      {2, 2, 2, 1, 1, 64, 64, false, kNoMask, {}, -1, V::kContiguous},
      {1, 2, 2, 1, 77, 128, 128, true, kNoMask, {}, -1, V::kContiguous},    // row 0 sees key 0
      {1, 2, 2, 77, 130, 64, 64, true, kNoMask, {}, -1, V::kContiguous},    // Sq < Skv
      {1, 2, 2, 130, 77, 128, 128, true, kNoMask, {}, -1, V::kContiguous},  // Sq > Skv
      {2, 4, 2, 100, 100, 64, 64, false, kNoMask, {}, -1, V::kContiguous},  // GQA 2
      {1, 8, 2, 70, 90, 128, 128, true, kNoMask, {}, -1, V::kContiguous},   // GQA 4
      {2, 4, 2, 77, 130, 64, 64, false, kBoolMask, {2, 1, 1, 130}, -1, V::kContiguous},
      {1, 2, 2, 77, 130, 128, 128, true, kAdditiveMask, {77, 130}, -1, V::kContiguous},
      {2, 2, 1, 33, 65, 64, 64, false, kAdditiveMask, {65}, -1, V::kContiguous},
      {2, 4, 4, 20, 70, 64, 64, false, kBoolMask, {2, 4, 20, 70}, 5, V::kContiguous},
      {1, 2, 2, 20, 70, 128, 128, false, kAdditiveMask, {1, 1, 20, 70}, 7, V::kContiguous},
      {1, 2, 2, 66, 66, 64, 64, true, kBoolMask, {66, 66}, 0, V::kContiguous},  // row 0 dead
      {1, 2, 2, 40, 50, 32, 32, false, kNoMask, {}, -1, V::kContiguous},
      {1, 2, 2, 77, 77, 80, 80, true, kNoMask, {}, -1, V::kContiguous},
      {1, 2, 2, 40, 50, 40, 24, false, kNoMask, {}, -1, V::kContiguous},  // d != dv
      {1, 2, 2, 40, 50, 20, 36, true, kNoMask, {}, -1, V::kContiguous},   // not multiples of 8
      {1, 1, 1, 70, 70, 200, 200, true, kAdditiveMask, {70, 70}, -1, V::kContiguous},
      {2, 4, 2, 77, 77, 64, 64, true, kNoMask, {}, -1, V::kFusedQkv},
      {1, 4, 4, 130, 130, 128, 128, false, kBoolMask, {1, 1, 1, 130}, -1, V::kFusedQkv},
      {2, 4, 2, 77, 90, 64, 64, true, kNoMask, {}, -1, V::kPadded},
      {1, 2, 2, 30, 40, 80, 48, false, kAdditiveMask, {30, 40}, 3, V::kPadded},
      // A few query rows (attention_decode.cuh): a KV cache's prefix mask (whole groups of 32
      // keys skipped), GQA 8, key ranges split over a cluster, unaligned views, dead rows.
      {1, 12, 12, 1, 256, 64, 64, false, kBoolMask, {1, 1, 1, 256}, -1, V::kContiguous, 131},
      {1, 32, 4, 1, 256, 64, 64, false, kBoolMask, {1, 1, 1, 256}, -1, V::kContiguous, 200},
      {2, 4, 2, 2, 300, 128, 128, false, kAdditiveMask, {2, 1, 2, 300}, -1, V::kPadded},
      {1, 2, 2, 4, 1000, 64, 64, true, kNoMask, {}, -1, V::kContiguous},
      {1, 2, 2, 3, 1000, 80, 80, false, kNoMask, {}, -1, V::kContiguous},
      {1, 1, 1, 1, 2048, 256, 256, false, kBoolMask, {2048}, -1, V::kContiguous},
      {1, 2, 2, 1, 70, 64, 64, false, kBoolMask, {1, 70}, 0, V::kContiguous},  // row 0 dead
      {2, 4, 2, 1, 1, 64, 64, true, kNoMask, {}, -1, V::kFusedQkv},
      {1, 2, 1, 2, 90, 20, 36, false, kBoolMask, {2, 90}, -1, V::kPadded},  // not multiples of 8
      {1, 4, 2, 1, 100, 64, 40, false, kNoMask, {}, -1, V::kContiguous},    // V's chunks past dv
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!all && i % 3 != 0) continue;  // f64: every third case
    check_case<T>(cases[i], rng, i == 0);
  }
  if (all) {
    // Long sequences: many key tiles and query tiles, causal.
    check_case<T>({1, 2, 1, 512, 512, 128, 128, true, kNoMask, {}, -1, V::kContiguous}, rng);
    check_case<T>({1, 2, 2, 300, 512, 64, 64, false, kNoMask, {}, -1, V::kContiguous}, rng, true);
  }
}

void argument_checks() {
  const k::AttentionLayout l{0, 0, 0};
  const k::AttentionMask none{nullptr, 0, {0, 0, 0, 0}};
  const float* p = reinterpret_cast<const float*>(16);
  float* o = reinterpret_cast<float*>(16);
  expect(k::attention<float, 64>(p, p, p, o, {1, 2, 2, 4, 4, 80, 64}, l, l, l, l, none, 1.0, false,
                                 g_stream) == cudaErrorInvalidValue,
         "attention refuses d above the head tile");
  expect(k::attention<float, 64>(p, p, p, o, {1, 3, 2, 4, 4, 64, 64}, l, l, l, l, none, 1.0, false,
                                 g_stream) == cudaErrorInvalidValue,
         "attention refuses heads not a multiple of kv_heads");
  expect(k::attention<float, 64>(p, p, p, o, {1, 2, 2, 4, 4, 64, 64}, l, l, l, l,
                                 {nullptr, 1, {0, 0, 0, 0}}, 1.0, false,
                                 g_stream) == cudaErrorInvalidValue,
         "attention refuses a bool mask without data");
  expect(k::attention<float, 64>(nullptr, nullptr, nullptr, nullptr, {1, 2, 2, 0, 4, 64, 64}, l, l,
                                 l, l, none, 1.0, false, g_stream) == cudaSuccess,
         "attention of no query rows");
}

// A launch captured into a CUDA graph (global mode, the strictest: the launcher's shared-memory
// opt-in, cudaFuncSetAttribute, happens during the capture) replays the eager result bit for bit.
template <typename T>
void graph_capture() {
  std::mt19937_64 rng(5);
  const int64_t b = 1, h = 2, s = 100, d = 128;  // head tile 128: above 48 KB of shared memory
  const std::vector<T> host = random_values<T>(static_cast<size_t>(b * h * s * d), -1, 1, rng);
  DeviceBuffer<T> x(host), eager(host.size()), replayed(host.size());
  const k::AttentionLayout l{h * s * d, s * d, d};
  const k::AttentionMask none{nullptr, 0, {0, 0, 0, 0}};
  const k::AttentionDims dims{b, h, h, s, s, d, d};
  const std::string name = std::string("attention graph capture ") + dtype_name<T>();
  eager.poison();
  replayed.poison();
  if (!expect_launch(k::attention<T, 128>(x.get(), x.get(), x.get(), eager.get(), dims, l, l, l, l,
                                          none, 0.125, true, g_stream),
                     name + " (eager)"))
    return;
  cudaGraph_t graph = nullptr;
  KT_CUDA(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
  const cudaError_t captured = k::attention<T, 128>(x.get(), x.get(), x.get(), replayed.get(), dims,
                                                    l, l, l, l, none, 0.125, true, g_stream);
  const cudaError_t ended = cudaStreamEndCapture(g_stream, &graph);
  if (!expect(captured == cudaSuccess && ended == cudaSuccess, name,
              std::string(cudaGetErrorString(captured)) + ", " + cudaGetErrorString(ended))) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    return;
  }
  cudaGraphExec_t exec = nullptr;
  KT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  KT_CUDA(cudaGraphLaunch(exec, g_stream));
  KT_CUDA(cudaStreamSynchronize(g_stream));
  expect_bitwise_equal(name + " (replay)", replayed.download(), eager.download());
  KT_CUDA(cudaGraphExecDestroy(exec));
  KT_CUDA(cudaGraphDestroy(graph));
}

}  // namespace

void run_attention_tests() {
  // The decode kernel's dependent launch is on unless the environment turns it off (read once
  // per process): these cases take it, whatever the caller's environment says.
  setenv("INFERNO_ATTENTION_DEPENDENT", "1", 1);
  attention_cases<float>(true);
  attention_cases<__half>(true);
  attention_cases<__nv_bfloat16>(true);
  attention_cases<double>(false);
  graph_capture<__half>();
  graph_capture<float>();
  argument_checks();
}

}  // namespace kernels_test
