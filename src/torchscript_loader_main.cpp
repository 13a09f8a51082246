// infernoc-torchscript: infernoc's TorchScript loader, the one executable that links LibTorch.
// infernoc runs it for each TorchScript file (frontend/torchscript_client.cpp), so that LibTorch
// is loaded, and an untrusted .pt parsed, only in this short-lived child process.
//
//   infernoc-torchscript MODEL.pt RESULT_FILE INPUT_SPECS
//
// INPUT_SPECS is the encoded list of input specs and RESULT_FILE receives the outcome
// (frontend/torchscript_protocol.h). The exit status is the load's ErrorCode: 0, or the code of the
// error that is also in the result file and printed on stderr.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/torchscript_frontend.h"
#include "frontend/torchscript_protocol.h"
#include "support/file_io.h"

namespace {

namespace protocol = inferno::frontend::torchscript_protocol;

inferno::Status load(const std::string& model, const std::string& specs,
                     std::vector<std::string>& notes, std::optional<inferno::ir::Graph>& graph,
                     bool& reads_sizes) {
  inferno::Expected<std::vector<inferno::frontend::InputSpec>> inputs =
      protocol::decode_input_specs(specs);
  if (!inputs) return inputs.status();
  inferno::frontend::LoadOptions options;
  options.inputs = std::move(*inputs);
  options.note = [&notes](std::string_view note) { notes.emplace_back(note); };
  options.reads_sizes = &reads_sizes;
  inferno::Expected<inferno::ir::Graph> loaded =
      inferno::frontend::load_torchscript_in_process(model, options);
  if (!loaded) return loaded.status();
  graph = std::move(*loaded);
  return inferno::Status::ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: infernoc-torchscript MODEL.pt RESULT_FILE INPUT_SPECS\n"
                 "infernoc's TorchScript loader; infernoc runs it, with arguments it encodes\n");
    return static_cast<int>(inferno::ErrorCode::kInvalidInput);
  }
  std::vector<std::string> notes;
  std::optional<inferno::ir::Graph> graph;
  bool reads_sizes = false;
  const inferno::Status status = load(argv[1], argv[3], notes, graph, reads_sizes);
  const inferno::Status written = inferno::write_file_atomic(
      argv[2], protocol::encode_result(status, notes, graph ? &*graph : nullptr, reads_sizes));
  const inferno::Status& reported = written.is_ok() ? status : written;
  if (!reported.is_ok()) {
    std::fprintf(stderr, "infernoc-torchscript: error: %s\n", reported.to_string().c_str());
  }
  return static_cast<int>(reported.code());
}
