#include "codegen/strided_view.h"

#include "support/check.h"

namespace inferno::codegen {

StridedView broadcast_view(const ir::Shape& from, const ir::Shape& to) {
  return broadcast_view(StridedView{from, ir::contiguous_strides(from)}, to);
}

StridedView broadcast_view(const StridedView& view, const ir::Shape& to) {
  INFERNO_CHECK(view.shape.size() <= to.size(),
                "broadcast_view: source has more dims than the target");
  const size_t lead = to.size() - view.shape.size();
  StridedView out{to, std::vector<int64_t>(to.size(), 0)};
  for (size_t d = lead; d < to.size(); ++d) {
    const int64_t size = view.shape[d - lead];
    INFERNO_CHECK(size == to[d] || size == 1, "broadcast_view: shapes do not broadcast");
    out.strides[d] = size == 1 ? 0 : view.strides[d - lead];
  }
  return out;
}

int64_t max_offset(const StridedView& view) {
  int64_t offset = 0;
  for (size_t d = 0; d < view.shape.size(); ++d) {
    if (view.shape[d] == 0) return 0;
    offset += (view.shape[d] - 1) * view.strides[d];
  }
  return offset;
}

StridedView permute_view(const ir::Shape& in, const std::vector<int64_t>& dims) {
  INFERNO_CHECK(dims.size() == in.size(), "permute_view: dims do not match the rank");
  const std::vector<int64_t> source_strides = ir::contiguous_strides(in);
  StridedView view;
  for (const int64_t d : dims) {
    view.shape.push_back(in.at(static_cast<size_t>(d)));
    view.strides.push_back(source_strides.at(static_cast<size_t>(d)));
  }
  return view;
}

StridedView slice_view(const ir::Shape& in, const ir::Shape& out,
                       const std::vector<int64_t>& steps) {
  INFERNO_CHECK(out.size() == in.size() && steps.size() == in.size(),
                "slice_view: the slice does not match the rank");
  const std::vector<int64_t> source_strides = ir::contiguous_strides(in);
  StridedView view{out, {}};
  for (size_t d = 0; d < in.size(); ++d) view.strides.push_back(source_strides[d] * steps[d]);
  return view;
}

int64_t slice_offset(const ir::Shape& in, const std::vector<int64_t>& starts) {
  INFERNO_CHECK(starts.size() == in.size(), "slice_offset: the slice does not match the rank");
  const std::vector<int64_t> source_strides = ir::contiguous_strides(in);
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) offset += starts[d] * source_strides[d];
  return offset;
}

StridedView coalesce(const StridedView& view) {
  StridedView out;
  for (size_t d = 0; d < view.shape.size(); ++d) {
    if (view.shape[d] == 1) continue;
    if (!out.shape.empty() && out.strides.back() == view.strides[d] * view.shape[d]) {
      out.shape.back() *= view.shape[d];
      out.strides.back() = view.strides[d];
    } else {
      out.shape.push_back(view.shape[d]);
      out.strides.push_back(view.strides[d]);
    }
  }
  return out;
}

bool is_contiguous(const StridedView& coalesced) {
  return coalesced.shape.empty() || (coalesced.shape.size() == 1 && coalesced.strides[0] == 1);
}

std::string offset_expression(const StridedView& coalesced, std::string_view index) {
  const std::string i(index);
  std::string expr;
  int64_t inner = 1;  // elements of the output below dim d
  for (size_t d = coalesced.shape.size(); d-- > 0;) {
    const int64_t size = coalesced.shape[d], stride = coalesced.strides[d];
    if (stride != 0) {
      std::string term = inner == 1 ? i : i + " / " + std::to_string(inner);
      if (d > 0) term += " % " + std::to_string(size);  // the outermost dim needs no wrap
      if (stride != 1) term += " * " + std::to_string(stride);
      expr = expr.empty() ? term : term + " + " + expr;
    }
    inner *= size;
  }
  return expr.empty() ? "0" : expr;
}

}  // namespace inferno::codegen
