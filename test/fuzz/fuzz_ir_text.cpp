// The IR text parser (ir/parser.h): any text it accepts is a verified graph whose printed form
// parses back to the same print (parse . print . parse is stable). Small accepted graphs also go
// through the default pipeline and codegen, which must refuse what they cannot handle rather than
// fail an internal check. The seed corpus is test/golden/ir.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_compile.h"
#include "fuzz_target.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace {

// Graphs beyond this many elements over all values, or this many nodes, skip the pipeline: the
// fuzzer's time is better spent on more inputs than on one large graph.
constexpr int64_t kMaxPipelineElements = 1 << 20;
constexpr size_t kMaxPipelineNodes = 256;

bool small_enough(const inferno::ir::Graph& graph) {
  if (graph.nodes().size() > kMaxPipelineNodes) return false;
  int64_t elements = 0;
  for (int32_t id = 0; id < graph.num_values(); ++id) {
    const int64_t n = graph.type(id).numel();
    if (n > kMaxPipelineElements - elements) return false;
    elements += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using inferno::fuzz::require_not_internal;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  inferno::Expected<inferno::ir::Graph> graph = inferno::ir::parse_graph(text);
  if (!graph) {
    require_not_internal(graph.status(), "parsing");
    return 0;
  }
  const std::string printed = inferno::ir::print_graph(*graph);
  inferno::Expected<inferno::ir::Graph> again = inferno::ir::parse_graph(printed);
  if (!again) {
    std::fprintf(stderr, "fuzz_ir_text: the printed graph does not parse: %s\n%s\n",
                 again.status().to_string().c_str(), printed.c_str());
    std::abort();
  }
  if (inferno::ir::print_graph(*again) != printed) {
    std::fprintf(stderr, "fuzz_ir_text: print(parse(print(g))) != print(g) for\n%s\n",
                 printed.c_str());
    std::abort();
  }
  if (!small_enough(*graph)) return 0;
  inferno::fuzz::optimize_and_generate(*graph);
  return 0;
}
