// Weight and constant payloads: the payload configs, and rebuilding each tensor from its storage
// record. A record holds one whole storage; a tensor is a strided view of it (as_strided), so the
// view is checked to fit the record (largest element offset, overflow-checked) and then gathered
// element by element into a dense row-major buffer.
#include <algorithm>
#include <cstring>

#include "frontend/pt2_json.h"
#include "frontend/pt2_model.h"

namespace inferno::frontend::pt2 {
namespace {

constexpr uint64_t kMaxConfigBytes = uint64_t{256} << 20;
constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 40;
// A tensor may take more memory than its record holds (an empty record stands for zeros; a view
// with stride 0 repeats elements) by at most this much, so a small file cannot demand a large
// allocation.
constexpr uint64_t kMaxUnbackedBytes = uint64_t{1} << 30;

Expected<std::vector<int64_t>> static_ints(const std::vector<SymDim>& dims, const std::string& what,
                                           const char* field) {
  std::vector<int64_t> out;
  for (const SymDim& d : dims) {
    if (!d.value) return invalid_input(what + " has a symbolic " + field + " (" + d.expr + ")");
    out.push_back(*d.value);
  }
  return out;
}

// Copies the strided view into `dst` (dense, row-major).
void gather(const std::byte* src, std::byte* dst, const ir::Shape& sizes,
            const std::vector<int64_t>& strides, int64_t offset, int64_t elem, int64_t numel) {
  const size_t rank = sizes.size();
  if (strides == ir::contiguous_strides(sizes)) {
    std::memcpy(dst, src + offset * elem, static_cast<size_t>(numel * elem));
    return;
  }
  std::vector<int64_t> index(rank, 0);
  int64_t src_index = offset;
  for (int64_t i = 0; i < numel; ++i) {
    std::memcpy(dst + i * elem, src + src_index * elem, static_cast<size_t>(elem));
    for (size_t d = rank; d-- > 0;) {  // odometer step
      src_index += strides[d];
      if (++index[d] < sizes[d]) break;
      src_index -= strides[d] * sizes[d];
      index[d] = 0;
    }
  }
}

// Checks the view against its storage record (read once per record), then gathers it.
Expected<ir::Tensor> gather_record(const Pt2Archive& archive, const Payload& payload,
                                   const std::string& what, ir::TensorType type,
                                   const std::vector<int64_t>& strides, int64_t offset,
                                   int64_t needed, RecordCache& cache) {
  const std::optional<uint64_t> record_size = archive.size(payload.record);
  const int64_t numel = type.numel(), elem = ir::dtype_size(type.dtype);
  if (numel > 0 && *record_size < static_cast<uint64_t>(needed)) {
    return invalid_input("record " + payload.record + " has " + std::to_string(*record_size) +
                         " bytes but " + what + " (" + type.to_string() + ", strides " +
                         ir::shape_to_string(strides) + ", offset " + std::to_string(offset) +
                         ") needs " + std::to_string(needed));
  }
  auto it = cache.find(payload.record);
  if (it == cache.end()) {
    INFERNO_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                             archive.read(payload.record, kMaxRecordBytes));
    it = cache
             .emplace(payload.record,
                      std::make_shared<const std::vector<std::byte>>(std::move(bytes)))
             .first;
  }
  const std::vector<std::byte>& storage = *it->second;
  if (numel > 0 && storage.size() < static_cast<uint64_t>(needed)) {
    return invalid_input("record " + payload.record + " is shorter than " + what + " needs");
  }
  ir::Tensor tensor = ir::Tensor::zeros(std::move(type));
  if (numel > 0)
    gather(storage.data(), tensor.data.data(), tensor.type.shape, strides, offset, elem, numel);
  return tensor;
}

}  // namespace

Expected<PayloadConfig> read_payload_config(const Pt2Archive& archive, const std::string& record,
                                            const std::string& base_dir) {
  PayloadConfig config;
  if (!archive.has(record)) return config;
  INFERNO_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, archive.read(record, kMaxConfigBytes));
  INFERNO_ASSIGN_OR_RETURN(nlohmann::json json, parse_json(bytes, record));
  const JsonRef root(json, record);
  INFERNO_ASSIGN_OR_RETURN(JsonRef entries, root.at("config"));
  INFERNO_ASSIGN_OR_RETURN(auto members, entries.members());
  for (auto& [fqn, entry] : members) {
    Payload p;
    p.fqn = fqn;
    INFERNO_ASSIGN_OR_RETURN(JsonRef path, entry.at("path_name"));
    INFERNO_ASSIGN_OR_RETURN(std::string path_name, path.string());
    p.record = path_name.starts_with("data/") ? path_name : base_dir + path_name;
    if (std::optional<JsonRef> pickle = entry.find("use_pickle")) {
      INFERNO_ASSIGN_OR_RETURN(p.use_pickle, pickle->boolean());
    }
    if (std::optional<JsonRef> meta = entry.find("tensor_meta")) {
      INFERNO_ASSIGN_OR_RETURN(p.meta, parse_tensor_meta(*meta));
    }
    config.emplace(fqn, std::move(p));
  }
  return config;
}

Expected<ir::Tensor> load_payload(const Pt2Archive& archive, const Payload& payload,
                                  const std::string& what, RecordCache& cache) {
  if (payload.use_pickle || !payload.meta) {
    return invalid_input(what + " is stored as a pickle, which infernoc does not read (" +
                         payload.record + ")");
  }
  const TensorMeta& meta = *payload.meta;
  INFERNO_ASSIGN_OR_RETURN(ir::DType dtype, dtype_from_code(meta.dtype_code, what));
  INFERNO_ASSIGN_OR_RETURN(ir::Shape sizes, static_ints(meta.sizes, what, "size"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<int64_t> strides, static_ints(meta.strides, what, "stride"));
  if (!meta.storage_offset.value) return invalid_input(what + " has a symbolic storage offset");
  const int64_t offset = *meta.storage_offset.value;
  if (strides.size() != sizes.size()) {
    return invalid_input(what + " has " + std::to_string(sizes.size()) + " sizes but " +
                         std::to_string(strides.size()) + " strides");
  }
  // Element count and the largest element offset of the view, overflow-checked.
  int64_t numel = 1, last = offset;
  bool overflow = offset < 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || strides[i] < 0)
      return invalid_input(what + " has a negative size or stride");
    overflow = overflow || __builtin_mul_overflow(numel, sizes[i], &numel);
    int64_t span = 0;
    if (sizes[i] > 0) {
      overflow = overflow || __builtin_mul_overflow(sizes[i] - 1, strides[i], &span) ||
                 __builtin_add_overflow(last, span, &last);
    }
  }
  const int64_t elem = ir::dtype_size(dtype);
  int64_t needed = 0, dense_bytes = 0;
  overflow = overflow || __builtin_add_overflow(last, 1, &needed) ||
             __builtin_mul_overflow(needed, elem, &needed) ||
             __builtin_mul_overflow(numel, elem, &dense_bytes);
  if (overflow) return invalid_input(what + ": sizes, strides and offset overflow");

  ir::TensorType type{dtype, sizes};
  if (!ir::checked_numel(sizes))
    return invalid_input(what + " has an invalid or too large shape " + type.to_string());
  const std::optional<uint64_t> record_size = archive.size(payload.record);
  if (!record_size)
    return invalid_input(what + ": record " + payload.record + " is missing from the archive");
  if (static_cast<uint64_t>(dense_bytes) > std::max(*record_size, kMaxUnbackedBytes)) {
    return invalid_input(what + " is " + std::to_string(dense_bytes) + " bytes, but record " +
                         payload.record + " holds " + std::to_string(*record_size) +
                         " (beyond a record's size, a tensor may take at most " +
                         std::to_string(kMaxUnbackedBytes) + " bytes)");
  }
  try {
    if (*record_size == 0)
      return ir::Tensor::zeros(std::move(type));  // the writer's encoding of zeros
    return gather_record(archive, payload, what, std::move(type), strides, offset, needed, cache);
  } catch (const std::bad_alloc&) {
    return invalid_input(what + " (" + std::to_string(dense_bytes) +
                         " bytes) does not fit in memory");
  }
}

}  // namespace inferno::frontend::pt2
