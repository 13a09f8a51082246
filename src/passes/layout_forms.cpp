#include "passes/layout_forms.h"

#include <cstring>
#include <utility>

#include "support/check.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

bool is_identity(const ir::IntList& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

/// `shape` with leading 1s up to `rank` dims (how broadcasting reads a lower-rank operand).
ir::Shape padded(const ir::Shape& shape, size_t rank) {
  ir::Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

bool is_constant_with_data(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  return value.kind == ir::ValueKind::kConstant && value.constant != nullptr;
}

}  // namespace

ir::Shape permuted_shape(const ir::Shape& shape, const ir::IntList& dims) {
  ir::Shape out;
  for (const int64_t d : dims) out.push_back(shape[static_cast<size_t>(d)]);
  return out;
}

bool is_reshape_permutation(const ir::Shape& shape, const ir::IntList& dims) {
  int64_t last = -1;
  for (const int64_t d : dims) {
    if (shape[static_cast<size_t>(d)] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

void LayoutForms::set_pending(ir::ValueId v, ir::ValueId nhwc, const SourceLocation& loc) {
  nhwc_[v] = nhwc;
  pending_[v] = loc;
}

bool LayoutForms::convertible(ir::ValueId v) const {
  const ir::Value& value = rebuilder_.graph().value(v);
  return value.kind != ir::ValueKind::kConstant || value.constant != nullptr || has_nhwc(v);
}

int64_t LayoutForms::nhwc_copy_cost(ir::ValueId v) const {
  const ir::Graph& graph = rebuilder_.graph();
  const ir::TensorType& type = graph.type(v);
  if (has_nhwc(v) || type.rank() == 0 || graph.value(v).kind == ir::ValueKind::kConstant) return 0;
  return is_reshape_permutation(padded(type.shape, 4), kToNhwc) ? 0 : type.numel();
}

int64_t LayoutForms::nchw_copy_cost(ir::ValueId v) const {
  if (!is_pending(v)) return 0;
  const ir::TensorType& form = rebuilder_.graph().type(nhwc_form(v));
  return is_reshape_permutation(form.shape, kToNchw) ? 0 : form.numel();
}

Expected<ir::ValueId> LayoutForms::nchw(ir::ValueId v) {
  auto it = pending_.find(v);
  if (it == pending_.end()) return v;
  const SourceLocation loc = std::move(it->second);
  pending_.erase(it);
  return permute(nhwc_form(v), kToNchw, rebuilder_.graph().name(v), loc, v);
}

Expected<ir::ValueId> LayoutForms::nhwc(ir::ValueId v, const SourceLocation& loc) {
  if (auto it = nhwc_.find(v); it != nhwc_.end()) return it->second;
  if (auto it = constant_forms_.find(v); it != constant_forms_.end()) return it->second;
  const ir::Graph& graph = rebuilder_.graph();
  const ir::Shape shape = graph.type(v).shape;
  INFERNO_CHECK(shape.size() <= 4, "assign-layout: an NHWC operand of rank above 4");
  if (shape.empty()) return v;
  const ir::Shape full = permuted_shape(padded(shape, 4), kToNhwc);
  const std::string name = graph.name(v) + "_nhwc";
  if (graph.value(v).kind == ir::ValueKind::kConstant) {
    INFERNO_CHECK(is_constant_with_data(graph, v), "assign-layout: a constant without data");
    size_t first = 0;  // drop the padding again, keeping a rank-4 constant's rank
    while (shape.size() < 4 && first + 1 < full.size() && full[first] == 1) ++first;
    const ir::Shape operand(full.begin() + static_cast<ptrdiff_t>(first), full.end());
    return constant_forms_[v] = permuted_constant(v, kToNhwc, operand);
  }
  ir::ValueId form = v;
  if (is_reshape_permutation(padded(shape, 4), kToNhwc)) {
    INFERNO_ASSIGN_OR_RETURN(form, reshape(v, full, name, loc));
  } else {
    if (shape.size() < 4) {
      INFERNO_ASSIGN_OR_RETURN(form, reshape(v, padded(shape, 4), graph.name(v) + "_4d", loc));
    }
    INFERNO_ASSIGN_OR_RETURN(form, permute(form, kToNhwc, name, loc));
  }
  nhwc_[v] = form;
  return form;
}

Expected<ir::ValueId> LayoutForms::permute(ir::ValueId v, const ir::IntList& dims,
                                           const std::string& name, const SourceLocation& loc,
                                           ir::ValueId define) {
  const ir::Graph& graph = rebuilder_.graph();
  const ir::Shape shape = graph.type(v).shape;
  if (is_identity(dims)) return existing(v, define);
  if (const ir::Node* inner = rebuilder_.producer(v, OpKind::kPermute)) {
    // out[i] = mid[dims[i]] = x[inner[dims[i]]].
    const ir::IntList& inner_dims = inner->attrs.get_ints("dims");
    ir::IntList composed;
    for (const int64_t d : dims) composed.push_back(inner_dims[static_cast<size_t>(d)]);
    const ir::ValueId x = inner->inputs[0];
    return permute(x, composed, name, loc, define);
  }
  if (is_reshape_permutation(shape, dims))
    return reshape(v, permuted_shape(shape, dims), name, loc, define);
  if (is_constant_with_data(graph, v))
    return existing(permuted_constant(v, dims, permuted_shape(shape, dims)), define);
  ir::Attributes attrs;
  attrs.set("dims", dims);
  return emit(OpKind::kPermute, v, std::move(attrs), name, loc, define);
}

Expected<ir::ValueId> LayoutForms::reshape(ir::ValueId v, const ir::Shape& shape,
                                           const std::string& name, const SourceLocation& loc,
                                           ir::ValueId define) {
  const ir::Graph& graph = rebuilder_.graph();
  if (const ir::Node* inner = rebuilder_.producer(v, OpKind::kReshape)) v = inner->inputs[0];
  if (graph.type(v).shape == shape) return existing(v, define);
  if (is_constant_with_data(graph, v)) {
    ir::Tensor data = *graph.value(v).constant;
    data.type.shape = shape;
    return existing(rebuilder_.graph().add_constant(graph.name(v) + "_nhwc", std::move(data)),
                    define);
  }
  ir::Attributes attrs;
  attrs.set("shape", shape);
  return emit(OpKind::kReshape, v, std::move(attrs), name, loc, define);
}

Status LayoutForms::define_outputs() {
  for (const ir::ValueId out : rebuilder_.graph().outputs()) {
    const Expected<ir::ValueId> defined = nchw(out);
    if (!defined) return defined.status();
  }
  return Status::ok();
}

ir::ValueId LayoutForms::permuted_constant(ir::ValueId c, const ir::IntList& dims,
                                           const ir::Shape& shape) {
  ir::Graph& graph = rebuilder_.graph();
  const ir::Tensor& source = *graph.value(c).constant;
  const ir::Shape in = padded(source.type.shape, dims.size());
  const ir::Shape out = permuted_shape(in, dims);
  const std::vector<int64_t> in_strides = ir::contiguous_strides(in);
  ir::Tensor result = ir::Tensor::zeros({source.type.dtype, shape});
  INFERNO_CHECK(ir::shape_numel(shape) == ir::shape_numel(out), "permuted_constant: sizes differ");
  const auto element = static_cast<size_t>(ir::dtype_size(source.type.dtype));
  std::vector<int64_t> index(out.size(), 0);  // the output element's coordinates
  const int64_t count = ir::shape_numel(out);
  for (int64_t i = 0; i < count; ++i) {
    int64_t from = 0;
    for (size_t d = 0; d < out.size(); ++d)
      from += index[d] * in_strides[static_cast<size_t>(dims[d])];
    std::memcpy(result.data.data() + static_cast<size_t>(i) * element,
                source.data.data() + static_cast<size_t>(from) * element, element);
    for (size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
  return graph.add_constant(graph.name(c) + "_nhwc", std::move(result));
}

ir::ValueId LayoutForms::existing(ir::ValueId v, ir::ValueId define) {
  if (define != ir::kNoValue) rebuilder_.replace(define, v);
  return v;
}

Expected<ir::ValueId> LayoutForms::emit(OpKind op, ir::ValueId v, ir::Attributes attrs,
                                        const std::string& name, const SourceLocation& loc,
                                        ir::ValueId define) {
  if (define == ir::kNoValue) return rebuilder_.build(op, {v}, std::move(attrs), name, loc);
  INFERNO_ASSIGN_OR_RETURN(ir::Node node,
                           redefine(rebuilder_.graph(), op, {v}, std::move(attrs), {define}, loc));
  rebuilder_.append(std::move(node));
  return define;
}

}  // namespace inferno::passes
