#include "cli/graph_dump.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "driver/process.h"
#include "driver/program_search.h"
#include "ir/dot.h"
#include "support/file_io.h"

namespace inferno::cli {
namespace {

// Graphviz lays out a few hundred nodes in well under a second; a huge graph is not worth
// holding the build up for.
constexpr std::chrono::seconds kRenderTimeout{60};

void render_png(const std::string& dir, const std::string& stem) {
  const char* path = std::getenv("PATH");
  const std::string dot = driver::find_in_path("dot", path == nullptr ? "" : path);
  if (dot.empty()) {
    spdlog::debug("--dump-graph: Graphviz's dot is not on $PATH; wrote DOT only");
    return;
  }
  driver::RunOptions run;
  run.cwd = dir;  // relative names only: nothing from the command line reaches dot's argv
  run.timeout = kRenderTimeout;
  const Expected<driver::ProcessResult> result =
      driver::run_program({dot, "-Tpng", stem + ".dot", "-o", stem + ".png"}, run);
  if (!result) {
    spdlog::warn("--dump-graph: cannot run {}: {}", dot, result.status().message());
  } else if (!result->succeeded()) {
    spdlog::warn("--dump-graph: {} failed ({}) rendering {}.png: {}", dot, result->describe_end(),
                 stem, result->output);
  } else {
    spdlog::info("wrote {}/{}.png", dir, stem);
  }
}

}  // namespace

Status dump_graph(const std::string& dir, const std::string& stem, const ir::Graph& graph) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io_error("--dump-graph: cannot create '" + dir + "': " + ec.message());
  const std::string file = (std::filesystem::path(dir) / (stem + ".dot")).string();
  INFERNO_RETURN_IF_ERROR(write_file_atomic(file, ir::graph_to_dot(graph)));
  spdlog::info("wrote {}", file);
  render_png(dir, stem);
  return Status::ok();
}

}  // namespace inferno::cli
