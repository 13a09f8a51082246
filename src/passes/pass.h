// What a pass is: a free function over the graph, registered by name (passes/pass_registry.cpp)
// so that `infernoc --passes=a,b` and tests can run any sub-pipeline.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"
#include "target/target.h"

namespace inferno::passes {

/// Which layout convolutions compute in (the assign-layout pass, passes/assign_layout.h).
enum class ConvLayout {
  kAuto,  ///< channels-last where the pass expects it to pay off
  kNchw,  ///< as the model has it: the pass changes nothing
  kNhwc,  ///< every conv2d channels-last
};

/// What the graph's f32 inputs and outputs become under a 16-bit precision (--io-precision).
/// kModel keeps the model's dtypes (convert-precision casts at the boundary); kCompute makes them
/// the 16-bit compute type (no boundary casts). Nothing changes with fp32 or tf32.
enum class IoPrecision { kModel, kCompute };

/// Options every pass receives. Grows with the optimizer.
struct PassOptions {
  ConvLayout conv_layout = ConvLayout::kAuto;
  /// The archs and precision (target/target.h); convert-precision reads the precision.
  target::Target target;
  IoPrecision io_precision = IoPrecision::kModel;
  /// Where a pass says what it chose not to do (convert-precision: a node kept in f32 because
  /// it has no 16-bit form); infernoc logs these at -v. May be empty.
  std::function<void(std::string_view)> note;
};

using PassFn = Status (*)(ir::Graph&, const PassOptions&);

struct PassInfo {
  std::string_view name;     ///< the name used by --passes
  std::string_view summary;  ///< one line for --help and docs
  PassFn run;
};

/// Every registered pass, in a stable order.
const std::vector<PassInfo>& registered_passes();
/// The pass called `name`, or null.
const PassInfo* find_pass(std::string_view name);

}  // namespace inferno::passes
