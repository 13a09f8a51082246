#include "sampling_reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/sample_math.h"

namespace inferno::test {
namespace {

namespace s = inferno::sampling;

struct Row {
  float max = -INFINITY;
  int32_t arg = -1;
  float scale = 0;
  bool greedy = true;
};

Row analyze(const std::vector<float>& x, const SamplingOptions& o) {
  Row row;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] > row.max || (x[i] == row.max && row.arg < 0)) {
      row.max = x[i];
      row.arg = static_cast<int32_t>(i);
    }
  }
  row.greedy = o.temperature == 0.0f || o.top_k == 1 || !(row.max > -INFINITY);
  row.scale = row.greedy ? 0.0f : 1.44269504f / o.temperature;  // as the generator computes it
  return row;
}

uint32_t threshold(const std::vector<float>& x, const SamplingOptions& o, const Row& row) {
  const auto vocab = static_cast<int32_t>(x.size());
  uint32_t tau = 1;
  if (o.top_k > 0 && o.top_k < vocab) {
    tau = s::threshold_search(static_cast<uint64_t>(o.top_k),
                              [&](uint32_t prefix, uint32_t mask, int shift, uint64_t* b) {
                                std::fill(b, b + 16, 0);
                                for (float v : x) {
                                  const uint32_t k = s::order_key(v);
                                  if (k >= 1 && (k & mask) == prefix) ++b[(k >> shift) & 15];
                                }
                              });
    tau = std::max(tau, 1u);
  }
  if (o.top_p < 1.0f) {
    uint64_t kept = 0;
    for (float v : x) {
      if (s::order_key(v) >= tau) kept += s::token_weight(v, row.max, row.scale);
    }
    const uint32_t floor_key = tau;
    tau = s::threshold_search(s::top_p_target(o.top_p, kept),
                              [&](uint32_t prefix, uint32_t mask, int shift, uint64_t* b) {
                                std::fill(b, b + 16, 0);
                                for (float v : x) {
                                  const uint32_t k = s::order_key(v);
                                  if (k >= floor_key && (k & mask) == prefix) {
                                    b[(k >> shift) & 15] += s::token_weight(v, row.max, row.scale);
                                  }
                                }
                              });
    tau = std::max(tau, floor_key);
  }
  return tau;
}

}  // namespace

int64_t mirror_token(const std::vector<float>& x, const SamplingOptions& o, uint64_t step) {
  const Row row = analyze(x, o);
  const int64_t greedy = row.arg < 0 ? 0 : row.arg;
  if (row.greedy) return greedy;
  const uint32_t tau = threshold(x, o, row);
  const auto vocab = static_cast<int64_t>(x.size());
  uint64_t total = 0;
  for (float v : x) {
    if (s::order_key(v) >= tau) total += s::token_weight(v, row.max, row.scale);
  }
  if (total == 0) return greedy;
  const uint64_t u = s::mul_high(s::step_random(o.seed, step), total);
  // The kernel's order: thread t's tokens t, t + kThreads, ..., then thread t + 1's.
  uint64_t at = 0;
  for (int64_t t = 0; t < s::kThreads; ++t) {
    for (int64_t i = t; i < vocab; i += s::kThreads) {
      if (s::order_key(x[i]) < tau) continue;
      at += s::token_weight(x[i], row.max, row.scale);
      if (at > u) return i;
    }
  }
  return greedy;
}

std::vector<int32_t> mirror_kept(const std::vector<float>& x, const SamplingOptions& o) {
  const Row row = analyze(x, o);
  const uint32_t tau = threshold(x, o, row);
  std::vector<int32_t> kept;
  for (size_t i = 0; i < x.size(); ++i) {
    if (s::order_key(x[i]) >= tau) kept.push_back(static_cast<int32_t>(i));
  }
  return kept;
}

std::vector<int32_t> textbook_kept(const std::vector<float>& x, const SamplingOptions& o) {
  std::vector<int32_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return x[a] > x[b]; });
  size_t keep = order.size();
  if (o.top_k > 0 && static_cast<size_t>(o.top_k) < order.size()) {
    const float kth = x[order[o.top_k - 1]];
    keep = 0;
    while (keep < order.size() && x[order[keep]] >= kth) ++keep;  // ties with the k-th stay
  }
  if (o.top_p < 1.0f) {
    const double max = x[order[0]];
    std::vector<double> p(keep);
    double z = 0;
    for (size_t i = 0; i < keep; ++i) z += p[i] = std::exp((x[order[i]] - max) / o.temperature);
    double mass = 0;
    size_t n = 0;
    while (n < keep && mass < o.top_p * z) {  // the fewest from the top reaching top_p
      mass += p[n];
      ++n;
      while (n < keep && x[order[n]] == x[order[n - 1]]) mass += p[n++];  // ties stay together
    }
    keep = n;
  }
  std::vector<int32_t> kept(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep));
  std::sort(kept.begin(), kept.end());
  return kept;
}

std::vector<double> textbook_probabilities(const std::vector<float>& x, const SamplingOptions& o,
                                           const std::vector<int32_t>& kept) {
  double max = -INFINITY;
  for (int32_t i : kept) max = std::max(max, static_cast<double>(x[i]));
  std::vector<double> p;
  double z = 0;
  for (int32_t i : kept) {
    p.push_back(std::exp((x[i] - max) / o.temperature));
    z += p.back();
  }
  for (double& v : p) v /= z;
  return p;
}

}  // namespace inferno::test
