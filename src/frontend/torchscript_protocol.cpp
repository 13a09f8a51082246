#include "frontend/torchscript_protocol.h"

#include <charconv>
#include <cstdint>
#include <memory>
#include <optional>

#include "ir/dtype.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "support/check.h"

namespace inferno::frontend::torchscript_protocol {
namespace {

/// First field of a result: a loader of another version is refused rather than misread.
constexpr std::string_view kResultMagic = "infernoc-torchscript-result-1";
/// Far above any real model's input count, rank or note count.
constexpr int64_t kMaxCount = 1 << 20;

void put(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
  out += ',';
}

void put(std::string& out, int64_t number) { put(out, std::to_string(number)); }

/// Reads netstrings from the front of `text_`; the first malformed field latches an error.
class FieldReader {
 public:
  explicit FieldReader(std::string_view text) : text_(text) {}

  std::optional<std::string_view> field() {
    size_t length = 0;
    const char* begin = text_.data();
    const char* end = begin + text_.size();
    auto [digits_end, ec] = std::from_chars(begin, end, length);
    if (ec != std::errc() || digits_end == end || *digits_end != ':') return fail();
    const size_t header = static_cast<size_t>(digits_end - begin) + 1;
    if (length > text_.size() - header || text_.size() - header - length < 1 ||
        text_[header + length] != ',') {
      return fail();
    }
    std::string_view value = text_.substr(header, length);
    text_.remove_prefix(header + length + 1);
    return value;
  }

  /// A decimal field within [min, max].
  std::optional<int64_t> number(int64_t min, int64_t max) {
    std::optional<std::string_view> text = field();
    if (!text) return std::nullopt;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max)
      return fail();
    return value;
  }

  bool failed() const { return failed_; }
  std::string_view rest() const { return text_; }

 private:
  std::nullopt_t fail() {
    failed_ = true;
    text_ = {};
    return std::nullopt;
  }

  std::string_view text_;
  bool failed_ = false;
};

}  // namespace

std::string encode_input_specs(const std::vector<InputSpec>& specs) {
  std::string out;
  put(out, static_cast<int64_t>(specs.size()));
  for (const InputSpec& spec : specs) {
    put(out, spec.name);
    put(out, ir::dtype_name(spec.type.dtype));
    put(out, spec.type.rank());
    for (int64_t dim : spec.type.shape) put(out, dim);
    put(out, spec.exact_dtype ? 1 : 0);
    put(out, spec.data_file);
  }
  return out;
}

Expected<std::vector<InputSpec>> decode_input_specs(std::string_view text) {
  FieldReader in(text);
  std::vector<InputSpec> specs;
  const std::optional<int64_t> count = in.number(0, kMaxCount);
  for (int64_t i = 0; count && i < *count && !in.failed(); ++i) {
    InputSpec spec;
    std::optional<std::string_view> name = in.field();
    std::optional<std::string_view> dtype = in.field();
    std::optional<int64_t> rank = in.number(0, kMaxCount);
    for (int64_t d = 0; rank && d < *rank && !in.failed(); ++d) {
      if (std::optional<int64_t> dim = in.number(0, ir::kMaxTensorElements))
        spec.type.shape.push_back(*dim);
    }
    std::optional<int64_t> exact = in.number(0, 1);
    std::optional<std::string_view> data_file = in.field();
    std::optional<ir::DType> parsed = dtype ? ir::parse_dtype(*dtype) : std::nullopt;
    if (in.failed() || !parsed) break;
    spec.name = std::string(*name);
    spec.type.dtype = *parsed;
    spec.exact_dtype = *exact == 1;
    spec.data_file = std::string(*data_file);
    specs.push_back(std::move(spec));
  }
  if (in.failed() || !count || static_cast<int64_t>(specs.size()) != *count || !in.rest().empty())
    return invalid_input("malformed input specs argument");
  return specs;
}

std::string encode_result(const Status& status, const std::vector<std::string>& notes,
                          const ir::Graph* graph, bool reads_sizes) {
  std::string out;
  put(out, kResultMagic);
  put(out, static_cast<int64_t>(status.code()));
  put(out, status.message());
  put(out, status.node());
  put(out, status.location().file);
  put(out, status.location().line);
  put(out, static_cast<int64_t>(notes.size()));
  for (const std::string& note : notes) put(out, note);
  put(out, int64_t{reads_sizes ? 1 : 0});
  if (!status.is_ok() || graph == nullptr) return out;
  // The weights as raw bytes: printing and parsing them as decimal text took seconds per 100 MB.
  INFERNO_CHECK(graph->num_states() == 0, "a TorchScript graph has no state");
  put(out, ir::print_graph(*graph, {.max_constant_elements = 0}));
  for (ir::ValueId id : graph->constants()) {
    const std::vector<std::byte>& data = graph->value(id).constant->data;
    put(out, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
  }
  return out;
}

Expected<Result> decode_result(std::string_view text) {
  FieldReader in(text);
  const std::optional<std::string_view> magic = in.field();
  if (!magic || *magic != kResultMagic)
    return internal_error("its result does not start with '" + std::string(kResultMagic) + "'");
  const std::optional<int64_t> code = in.number(0, static_cast<int64_t>(ErrorCode::kIo));
  const std::optional<std::string_view> message = in.field();
  const std::optional<std::string_view> node = in.field();
  const std::optional<std::string_view> file = in.field();
  const std::optional<int64_t> line = in.number(0, INT64_MAX);
  const std::optional<int64_t> note_count = in.number(0, kMaxCount);
  Result result;
  for (int64_t i = 0; note_count && i < *note_count && !in.failed(); ++i) {
    if (std::optional<std::string_view> note = in.field()) result.notes.emplace_back(*note);
  }
  const std::optional<int64_t> reads_sizes = in.number(0, 1);
  if (in.failed() || !reads_sizes) return internal_error("its result's header is malformed");
  result.status = Status(static_cast<ErrorCode>(*code), std::string(*message), std::string(*node),
                         SourceLocation{std::string(*file), *line});
  result.reads_sizes = *reads_sizes == 1;
  if (!result.status.is_ok()) return result;
  const std::optional<std::string_view> graph_text = in.field();
  if (!graph_text) return internal_error("it returned no graph");
  Expected<ir::Graph> graph = ir::parse_graph(*graph_text);
  if (!graph) return internal_error("its graph does not parse: " + graph.status().to_string());
  for (ir::ValueId id : graph->constants()) {
    const std::optional<std::string_view> bytes = in.field();
    const ir::TensorType& type = graph->type(id);
    if (!bytes || bytes->size() != static_cast<uint64_t>(type.size_bytes())) {
      return internal_error("the data of its constant '" + graph->name(id) + "' is not " +
                            std::to_string(type.size_bytes()) + " bytes");
    }
    const auto* begin = reinterpret_cast<const std::byte*>(bytes->data());
    graph->mutable_value(id).constant =
        std::make_shared<const ir::Tensor>(ir::Tensor{type, {begin, begin + bytes->size()}});
  }
  if (!in.rest().empty()) return internal_error("its result has bytes after the graph");
  result.graph = std::move(*graph);
  return result;
}

}  // namespace inferno::frontend::torchscript_protocol
