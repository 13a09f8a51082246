#include "support/op_table_cases.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "ir/builder.h"
#include "ir/shape_rules.h"
#include "support/catch.h"
#include "support/rotary_cases.h"

namespace inferno::test {
namespace {

using ir::DType;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// Rank `rank`, all dims 1 but `axis`, which is `n`.
ir::Shape on_axis(size_t axis, size_t rank, int64_t n) {
  ir::Shape shape(rank, 1);
  shape[axis] = n;
  return shape;
}

// `values` starting at position `by` (so two [V] operands do not only meet themselves).
std::vector<double> rotated(const std::vector<double>& values, size_t by) {
  std::vector<double> out;
  for (size_t i = 0; i < values.size(); ++i) out.push_back(values[(i + by) % values.size()]);
  return out;
}

}  // namespace

std::vector<Application> applications(const OpRow& row, DType dtype,
                                      const std::vector<double>& values,
                                      const std::vector<double>& literals) {
  using R = OperandRole;
  const auto operand_dtype = [&](R role) { return role == R::kCondition ? DType::kBool : dtype; };
  std::vector<ir::TensorType> probe;
  std::vector<size_t> data;  // the operands that are not parameters
  for (size_t k = 0; k < row.operands.size(); ++k) {
    probe.push_back({operand_dtype(row.operands[k]), {}});
    if (row.operands[k] != R::kParameter) data.push_back(k);
  }
  std::vector<ir::Attributes> variants(1);
  if (row.op == ir::OpKind::kCast) {
    variants.clear();
    for (const DType to : ir::kAllDTypes) {
      variants.emplace_back();
      variants.back().set("dtype", to);
    }
  }
  if (!ir::infer_output_types(row.op, probe, variants.front())) return {};

  // The parameter sets as values of the dtype (0.01 is 0 in integers, true in bool).
  std::vector<std::vector<double>> sets;
  for (const std::vector<double>& set : row.parameter_sets) {
    sets.emplace_back();
    for (const double p : set) sets.back().push_back(round_result(p, dtype, false));
  }
  const auto v = static_cast<int64_t>(values.size());
  const std::vector<double> conditions = table_values(DType::kBool, static_cast<int>(v) - 2, 5);
  // An operand of role `role` at position k, flat [V]; parameters take column `p` of the sets.
  const auto flat = [&](size_t k, size_t p) -> OperandData {
    const R role = row.operands[k];
    std::vector<double> column;
    for (const auto& set : sets) column.push_back(set[p]);
    const std::vector<double>& source = role == R::kCondition   ? conditions
                                        : role == R::kParameter ? column
                                                                : rotated(values, k);
    return {false, tensor_of({operand_dtype(role), {v}}, source)};
  };
  const auto scalar = [&](size_t k, double value, bool constant) -> OperandData {
    return {constant, tensor_of({operand_dtype(row.operands[k]), {}}, {value})};
  };

  std::vector<Application> out;
  for (const ir::Attributes& attrs : variants) {
    std::string base = std::string(ir::op_name(row.op)) + " " + std::string(ir::dtype_name(dtype));
    if (row.op == ir::OpKind::kCast)
      base += " to " + std::string(ir::dtype_name(attrs.get_dtype("dtype")));
    // grid: every combination of data values, once per parameter set.
    for (size_t s = 0; s < std::max<size_t>(sets.size(), 1); ++s) {
      Application a{base + " grid", row.op, attrs, {}};
      size_t axis = 0, p = 0;
      for (size_t k = 0; k < row.operands.size(); ++k) {
        const R role = row.operands[k];
        if (role == R::kParameter) {
          a.operands.push_back(scalar(k, sets[s][p++], true));
        } else if (role == R::kCondition) {
          a.operands.push_back(
              {false, tensor_of({DType::kBool, on_axis(axis++, data.size(), 2)}, {0, 1})});
        } else {
          a.operands.push_back(
              {false, tensor_of({dtype, on_axis(axis++, data.size(), v)}, values)});
        }
      }
      if (!sets.empty()) {
        a.label += " parameters (";
        for (size_t i = 0; i < sets[s].size(); ++i) a.label += (i ? ", " : "") + number(sets[s][i]);
        a.label += ")";
      }
      out.push_back(std::move(a));
    }
    if (!sets.empty()) {
      Application a{base + " tensor parameters", row.op, attrs, {}};
      size_t p = 0;
      for (size_t k = 0; k < row.operands.size(); ++k) {
        a.operands.push_back(flat(k, row.operands[k] == R::kParameter ? p++ : 0));
      }
      out.push_back(std::move(a));
    }
    if (data.size() < 2) continue;
    // literal: the last value operand a rank-0 constant; rank-0 input: the first a rank-0 input.
    size_t first = row.operands.size(), last = 0;
    for (size_t k = 0; k < row.operands.size(); ++k) {
      if (row.operands[k] != R::kValue) continue;
      first = std::min(first, k);
      last = k;
    }
    for (const double literal : literals) {
      Application a{base + " literal " + number(literal), row.op, attrs, {}};
      for (size_t k = 0; k < row.operands.size(); ++k) {
        a.operands.push_back(k == last ? scalar(k, literal, true) : flat(k, 0));
      }
      out.push_back(std::move(a));
    }
    Application a{base + " rank-0 input " + number(values.back()), row.op, attrs, {}};
    for (size_t k = 0; k < row.operands.size(); ++k) {
      a.operands.push_back(k == first ? scalar(k, values.back(), false) : flat(k, 0));
    }
    out.push_back(std::move(a));
  }
  return out;
}

ir::ValueId ApplicationAdder::add(const Application& application) {
  std::vector<ir::ValueId> ids;
  for (const OperandData& operand : application.operands) {
    const std::tuple<bool, std::string, std::string> key{
        operand.constant, operand.tensor.type.to_string(),
        std::string(reinterpret_cast<const char*>(operand.tensor.data.data()),
                    operand.tensor.data.size())};
    auto [at, added] = known_.try_emplace(key, ir::kNoValue);
    if (added) {
      const std::string name = operand.constant ? "c" : "x";
      if (operand.constant) {
        at->second = graph_.add_constant(name, operand.tensor);
      } else {
        at->second = graph_.add_input(name, operand.tensor.type);
        inputs_.push_back(operand.tensor);
      }
    }
    ids.push_back(at->second);
  }
  auto out =
      ir::build_value(graph_, application.op, ids, application.attrs, ir::op_name(application.op));
  INFO(application.label << ": " << (out ? "" : out.status().to_string()));
  REQUIRE(out.has_value());
  return *out;
}

int64_t broadcast_source(const ir::Shape& operand, const ir::Shape& out, int64_t i) {
  int64_t index = 0, stride = 1;
  const size_t offset = out.size() - operand.size();
  for (size_t d = out.size(); d-- > 0;) {
    const int64_t coordinate = i % out[d];
    i /= out[d];
    if (d < offset) continue;
    const int64_t dim = operand[d - offset];
    if (dim != 1) index += coordinate * stride;
    stride *= dim;
  }
  return index;
}

std::vector<Application> norm_applications(DType dtype) {
  if (!ir::is_floating(dtype)) return {};
  uint64_t seed = 7000 + static_cast<uint64_t>(dtype);
  const auto data = [&](const ir::Shape& shape, bool offset) -> OperandData {
    ir::Tensor x = random_tensor({dtype, shape}, ++seed);
    for (int64_t i = 0; offset && i < x.numel(); ++i) x.set(i, 1000 + x.get(i));
    return {false, std::move(x)};
  };
  const auto param = [&](const ir::Shape& shape) -> OperandData {
    return {true, random_tensor({dtype, shape}, ++seed)};
  };
  const std::string type = " " + std::string(ir::dtype_name(dtype)) + " ";
  std::vector<Application> out;
  // layer_norm: shape, normalized dims, parameters (0: none, 1: weight, 2: both), offset.
  struct Layer {
    ir::Shape shape;
    int64_t dims;
    int params;
    bool offset;
  };
  for (const Layer& c : std::vector<Layer>{{{3, 7}, 1, 2, false},      // 8 lanes a row, unpacked
                                           {{6, 1}, 1, 2, false},      // one element: the bias
                                           {{2, 3, 40}, 2, 2, false},  // a warp, packs
                                           {{5, 64}, 1, 2, true},
                                           {{4, 1000}, 1, 1, false},
                                           {{3, 999}, 1, 0, true},        // a warp, unpacked
                                           {{2, 1030}, 1, 2, false},      // a block, cached
                                           {{2, 3, 512}, 2, 2, true},     // a block, cached, packs
                                           {{2, 12000}, 1, 2, false}}) {  // a block, read again
    const ir::Shape normalized(c.shape.end() - c.dims, c.shape.end());
    Application a{"layer_norm" + type + ir::shape_to_string(c.shape) + " over " +
                      std::to_string(c.dims) + " dims, " + std::to_string(c.params) +
                      " parameters" + (c.offset ? ", offset 1000" : ""),
                  ir::OpKind::kLayerNorm,
                  {},
                  {data(c.shape, c.offset)}};
    a.attrs.set("normalized_dims", c.dims);
    a.attrs.set("eps", 1e-5);
    for (int k = 0; k < c.params; ++k) a.operands.push_back(param(normalized));
    out.push_back(std::move(a));
  }
  // rms_norm: the shapes of layer_norm's paths, with and without a weight (its only parameter).
  for (const Layer& c : std::vector<Layer>{{{3, 7}, 1, 1, false},
                                           {{2, 3, 40}, 2, 1, true},
                                           {{5, 64}, 1, 0, false},
                                           {{3, 999}, 1, 1, false},
                                           {{2, 3, 512}, 2, 1, true},
                                           {{2, 12000}, 1, 1, false}}) {
    const ir::Shape normalized(c.shape.end() - c.dims, c.shape.end());
    Application a{"rms_norm" + type + ir::shape_to_string(c.shape) + " over " +
                      std::to_string(c.dims) + " dims" + (c.params ? ", weight" : "") +
                      (c.offset ? ", offset 1000" : ""),
                  ir::OpKind::kRmsNorm,
                  {},
                  {data(c.shape, c.offset)}};
    a.attrs.set("normalized_dims", c.dims);
    a.attrs.set("eps", 1e-6);
    if (c.params) a.operands.push_back(param(normalized));
    out.push_back(std::move(a));
  }
  // group_norm: shape, groups, with weight and bias, offset.
  struct Group {
    ir::Shape shape;
    int64_t groups;
    bool params;
    bool offset;
  };
  for (const Group& c : std::vector<Group>{{{2, 6, 5, 4}, 3, true, false},
                                           {{2, 8, 8, 8}, 4, false, false},  // packs
                                           {{3, 4}, 2, true, false},         // [N, C]
                                           {{2, 4, 16}, 2, true, true},
                                           {{1, 4, 3000}, 1, true, false}}) {  // read again
    Application a{"group_norm" + type + ir::shape_to_string(c.shape) + " in " +
                      std::to_string(c.groups) + " groups" + (c.params ? ", parameters" : "") +
                      (c.offset ? ", offset 1000" : ""),
                  ir::OpKind::kGroupNorm,
                  {},
                  {data(c.shape, c.offset)}};
    a.attrs.set("groups", c.groups);
    a.attrs.set("eps", 1e-5);
    if (c.params) a.operands.insert(a.operands.end(), {param({c.shape[1]}), param({c.shape[1]})});
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<Application> attention_applications(DType dtype) {
  if (!ir::is_floating(dtype)) return {};
  uint64_t seed = 9000 + static_cast<uint64_t>(dtype);
  struct Case {
    int64_t batch, heads, kv_heads, sq, skv, d, dv;
    bool causal;
    std::string mask;  // none, bool or additive
    ir::Shape mask_shape;
    int64_t dead_row;  // a query row whose every mask entry drops the key (-1: none)
  };
  const std::vector<Case> cases = {
      {1, 2, 2, 5, 7, 8, 8, false, "none", {}, -1},
      {1, 2, 2, 70, 70, 64, 64, true, "none", {}, -1},               // two query tiles, diagonal
      {2, 4, 2, 3, 130, 32, 32, false, "bool", {2, 1, 1, 130}, -1},  // GQA 2, three key tiles
      {1, 8, 2, 9, 4, 12, 24, true, "additive", {9, 4}, -1},  // GQA 4, Sq > Skv, unaligned rows
      {1, 2, 1, 4, 20, 128, 128, false, "bool", {1, 1, 4, 20}, 1},
      {1, 2, 2, 4, 20, 128, 128, true, "additive", {4, 20}, 2},  // a row of -inf
      {1, 1, 1, 17, 33, 80, 80, true, "additive", {1, 1, 17, 33}, -1},
      {1, 1, 1, 3, 40, 200, 96, false, "none", {}, -1},  // the largest head tile
      {1, 2, 2, 1, 1, 64, 64, false, "none", {}, -1},
  };
  const std::string type = " " + std::string(ir::dtype_name(dtype)) + " ";
  std::vector<Application> out;
  for (const Case& c : cases) {
    Application a{"attention" + type + "q [" + std::to_string(c.batch) + "," +
                      std::to_string(c.heads) + "," + std::to_string(c.sq) + "," +
                      std::to_string(c.d) + "] k [.," + std::to_string(c.kv_heads) + "," +
                      std::to_string(c.skv) + ",.] dv " + std::to_string(c.dv) +
                      (c.causal ? ", causal" : "") + ", mask " + c.mask +
                      (c.mask == "none" ? "" : " " + ir::shape_to_string(c.mask_shape)),
                  ir::OpKind::kAttention,
                  {},
                  {}};
    a.operands.push_back({false, random_tensor({dtype, {c.batch, c.heads, c.sq, c.d}}, ++seed)});
    a.operands.push_back(
        {false, random_tensor({dtype, {c.batch, c.kv_heads, c.skv, c.d}}, ++seed)});
    a.operands.push_back(
        {false, random_tensor({dtype, {c.batch, c.kv_heads, c.skv, c.dv}}, ++seed)});
    a.attrs.set("scale", 1.0 / std::sqrt(static_cast<double>(c.d)));
    a.attrs.set("causal", c.causal);
    a.attrs.set("mask", c.mask);
    a.attrs.set("kv_groups", c.heads / c.kv_heads);
    if (c.mask != "none") {
      const bool keep_mask = c.mask == "bool";
      const ir::Tensor r = random_tensor({DType::kF32, c.mask_shape}, ++seed);
      ir::Tensor m = ir::Tensor::zeros({keep_mask ? DType::kBool : dtype, c.mask_shape});
      const int64_t skv = c.mask_shape.back();
      for (int64_t i = 0; i < m.numel(); ++i) {
        const bool dead =
            c.dead_row >= 0 && (i / skv) % c.mask_shape[c.mask_shape.size() - 2] == c.dead_row;
        const double inf = std::numeric_limits<double>::infinity();
        if (keep_mask) {
          m.set(i, !dead && r.get(i) > -1.0 ? 1 : 0);  // three keys in four kept
        } else {
          m.set(i, dead || i % 7 == 3 ? -inf : r.get(i));
        }
      }
      a.operands.push_back({true, std::move(m)});
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<double> attention_definition(const Application& application) {
  const ir::Tensor& q = application.operands[0].tensor;
  const ir::Tensor& k = application.operands[1].tensor;
  const ir::Tensor& v = application.operands[2].tensor;
  const ir::Tensor* mask =
      application.operands.size() > 3 ? &application.operands[3].tensor : nullptr;
  const std::string kind = application.attrs.get_string("mask");
  const bool causal = application.attrs.get_bool("causal");
  const double scale = application.attrs.get_float("scale");
  const int64_t batch = q.type.shape[0], heads = q.type.shape[1], sq = q.type.shape[2];
  const int64_t d = q.type.shape[3], kv_heads = k.type.shape[1], skv = k.type.shape[2];
  const int64_t dv = v.type.shape[3], per_kv = heads / kv_heads;
  const ir::Shape scores = {batch, heads, sq, skv};
  // Element (b, h, s, e) of a [B, H, S, E] tensor.
  const auto at = [](const ir::Tensor& t, int64_t b, int64_t h, int64_t s, int64_t e) {
    const ir::Shape& n = t.type.shape;
    return t.get(((b * n[1] + h) * n[2] + s) * n[3] + e);
  };
  std::vector<double> out;
  out.reserve(static_cast<size_t>(batch * heads * sq * dv));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t g = h / per_kv;
      for (int64_t i = 0; i < sq; ++i) {
        // The logits of the keys this row sees (others are left out of the softmax).
        std::vector<std::pair<int64_t, double>> seen;
        for (int64_t j = 0; j < skv; ++j) {
          if (causal && j > i) continue;
          double logit = 0;
          if (mask != nullptr) {
            const double m = mask->get(
                broadcast_source(mask->type.shape, scores, ((b * heads + h) * sq + i) * skv + j));
            if (kind == "bool" && m == 0) continue;
            if (kind == "additive") logit = m;
          }
          for (int64_t e = 0; e < d; ++e) logit += scale * at(q, b, h, i, e) * at(k, b, g, j, e);
          if (logit == -std::numeric_limits<double>::infinity()) continue;
          seen.push_back({j, logit});
        }
        double top = -std::numeric_limits<double>::infinity();
        for (const auto& [j, logit] : seen) top = std::max(top, logit);
        double total = 0;
        std::vector<double> weights;
        for (const auto& [j, logit] : seen) {
          weights.push_back(std::exp(logit - top));
          total += weights.back();
        }
        for (int64_t e = 0; e < dv; ++e) {
          double y = 0;
          for (size_t n = 0; n < seen.size(); ++n) {
            y += weights[n] / total * at(v, b, g, seen[n].first, e);
          }
          out.push_back(y);  // 0 when the row sees no key
        }
      }
    }
  }
  return out;
}

TableGraph table_graph() {
  TableGraph t;
  std::vector<ir::ValueId> outputs;
  ApplicationAdder adder(t.graph);
  uint64_t seed = 1;
  for (const DType dtype : ir::kAllDTypes) {
    std::vector<double> values = table_values(dtype, 10, ++seed);
    // The extremes, where integer arithmetic wraps (the GPU is compared with the reference, so
    // these need not be exact in double).
    if (dtype == DType::kI32) values.insert(values.end(), {2147483647.0, -2147483648.0});
    if (dtype == DType::kI64) {
      values.insert(values.end(),
                    {-9223372036854775808.0, 4611686018427387904.0, 3037000500.0, 4294967297.0});
    }
    const std::vector<double> edges = edge_values(dtype);
    size_t position = 0;
    for (const OpRow& row : op_table()) {
      const double literal = edges[position++ % edges.size()];
      for (const Application& a : applications(row, dtype, values, {literal})) {
        outputs.push_back(adder.add(a));
        t.labels.push_back(a.label);
      }
    }
    for (const Application& a : norm_applications(dtype)) {
      outputs.push_back(adder.add(a));
      t.labels.push_back(a.label);
    }
    for (const Application& a : attention_applications(dtype)) {
      outputs.push_back(adder.add(a));
      t.labels.push_back(a.label);
    }
    for (const Application& a : rotary_applications(dtype)) {
      outputs.push_back(adder.add(a));
      t.labels.push_back(a.label);
    }
  }
  t.graph.set_outputs(outputs);
  t.inputs = adder.inputs();
  return t;
}

}  // namespace inferno::test
