// Format detection by content (the zip's entry names) and dispatch to the two frontends; files of
// a format infernoc does not read (ONNX, torch.save checkpoints) are named as such.
#include "frontend/frontend.h"

#include <algorithm>

#include "frontend/foreign_format.h"
#include "frontend/pt2_archive.h"

namespace inferno::frontend {

Expected<ModelFormat> detect_format(const std::string& path) {
  Expected<Pt2Archive> opened = Pt2Archive::open(path);
  if (!opened && opened.status().code() == ErrorCode::kInvalidInput) {
    if (std::optional<Status> foreign = diagnose_non_zip(path)) return *foreign;
  }
  INFERNO_ASSIGN_OR_RETURN(Pt2Archive archive, std::move(opened));
  const std::vector<std::string>& names = archive.records();
  auto has_name = [&](std::string_view n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (archive.has("archive_format")) return ModelFormat::kPt2;
  if (has_name("serialized_exported_program.json")) {
    return invalid_input(
        "'" + path +
        "' is a torch.export archive in the layout of torch <= 2.7 "
        "(serialized_exported_program.json); "
        "infernoc reads the archive format of torch >= 2.8: re-export the model with torch >= 2.8");
  }
  const bool has_code = std::any_of(names.begin(), names.end(),
                                    [](const std::string& n) { return n.starts_with("code/"); });
  if (archive.has("data.pkl") && has_code) return ModelFormat::kTorchScript;
  if (std::optional<Status> foreign = diagnose_zip(path, names)) return *foreign;
  return invalid_input("'" + path +
                       "' is neither a torch.export archive (.pt2) nor a TorchScript file");
}

Expected<ir::Graph> load_model(const std::string& path, const LoadOptions& options,
                               TorchScriptLoader torchscript) {
  INFERNO_ASSIGN_OR_RETURN(ModelFormat format, detect_format(path));
  if (!has_named_dims(options.inputs)) {
    return format == ModelFormat::kPt2 ? load_pt2(path, options) : torchscript(path, options);
  }
  if (format == ModelFormat::kPt2) {
    return invalid_input(
        "--input names a dim, which only a TorchScript model's inputs take: a .pt2 has its own "
        "dynamic dims: name those in --dim SYMBOL=LO..HI or --specialize SYMBOL=V1,...");
  }
  // A TorchScript model with named dims (--input x:Bx16:f32): loaded at their bound sizes; a
  // size the model computes with as a number is baked into the graph, as the .pt2 frontend's
  // read_as_value says of its dims.
  LoadOptions bound = options;
  INFERNO_RETURN_IF_ERROR(bind_named_dims(bound));
  bool reads_sizes = false;
  bound.reads_sizes = &reads_sizes;
  INFERNO_ASSIGN_OR_RETURN(ir::Graph graph, torchscript(path, bound));
  if (options.dynamic_dims) {
    for (auto& [symbol, dim] : *options.dynamic_dims) dim.read_as_value = reads_sizes;
  }
  return graph;
}

}  // namespace inferno::frontend
