// libFuzzer's custom mutator for fuzz_pt2: mutations that keep the zip valid, so they reach the
// JSON graph and the weight records instead of dying at the zip checksums. An input that is an
// archive of stored entries is taken apart, one record is changed, and the archive is written
// again with correct sizes and CRCs:
//  - a JSON record (the model, the payload configs, the metadata) gets a JSON-aware edit: a number
//    becomes an extreme value, a string a hostile one or another string of the file, a member or
//    element is dropped, duplicated or given a value of another type, a subtree is copied over
//    another;
//  - any other record (weights, version files) gets libFuzzer's byte-level mutations, or is cut;
//  - now and then the archive itself gets raw mutations (the zip reader's own checks).
// Anything that is not such an archive is mutated raw. Only the libFuzzer build links this file.
#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "frontend/pt2_json.h"
#include "support/stored_zip.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using nlohmann::json;

constexpr size_t kMaxJsonRecord = 4 << 20;  // larger JSON records get byte mutations only
// nlohmann's dump and this file's walks recurse per level: a record nested deeper than this gets
// byte mutations only, and no copy makes a tree deeper (a little past the frontend's limit of 128,
// so that its refusal is reached too).
constexpr int kMaxDepth = 160;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Node {
  json* value;
  int depth;   // levels above it
  int height;  // levels below it (0 for a leaf)
};

// Every value of the tree, parents before children; returns the value's height.
int collect(json& value, int depth, std::vector<Node>& out) {
  const size_t index = out.size();
  out.push_back({&value, depth, 0});
  int height = 0;
  if (value.is_structured()) {
    for (json& child : value) height = std::max(height, 1 + collect(child, depth + 1, out));
  }
  out[index].height = height;
  return height;
}

json extreme_number(std::mt19937& rng) {
  static const std::vector<json> values = {0,
                                           -1,
                                           1,
                                           2,
                                           3,
                                           7,
                                           64,
                                           65535,
                                           65536,
                                           std::numeric_limits<int32_t>::max(),
                                           std::numeric_limits<int32_t>::min(),
                                           std::numeric_limits<int64_t>::max(),
                                           std::numeric_limits<int64_t>::min(),
                                           std::numeric_limits<uint64_t>::max(),
                                           int64_t{1} << 32,
                                           int64_t{1} << 40,
                                           int64_t{1} << 62,
                                           0.5,
                                           -0.0,
                                           1e308,
                                           -1e308};
  return values[rng() % values.size()];
}

json hostile_string(std::mt19937& rng, const std::vector<Node>& nodes) {
  static const std::vector<std::string> values = {"",
                                                  "\"",
                                                  "\\",
                                                  "\n",
                                                  "*/",
                                                  "#",
                                                  "?\?/",
                                                  "\xff\xfe",
                                                  "s0",
                                                  "s0*s1",
                                                  "2*s0+1",
                                                  "-s0",
                                                  "torch.ops.aten.add.Tensor",
                                                  "torch.ops.aten.view.default",
                                                  "torch.ops.higher_order.cond",
                                                  "_operator.getitem",
                                                  "Infinity",
                                                  "NaN",
                                                  std::string(5000, 'x')};
  // Half the time another string of the same file: a valid name in the wrong place.
  if (rng() % 2 == 0) {
    for (int tries = 0; tries < 8; ++tries) {
      const json* candidate = nodes[rng() % nodes.size()].value;
      if (candidate->is_string()) return *candidate;
    }
  }
  return values[rng() % values.size()];
}

void mutate_json(json& root, std::mt19937& rng) {
  std::vector<Node> nodes;
  collect(root, 0, nodes);
  const Node picked = nodes[rng() % nodes.size()];
  json* const target = picked.value;
  switch (rng() % 8) {
    case 0:
      *target = extreme_number(rng);
      break;
    case 1:
      *target = hostile_string(rng, nodes);
      break;
    case 2:  // drop a member or an element
      if (target->is_object() && !target->empty()) {
        auto it = target->begin();
        std::advance(it, rng() % target->size());
        target->erase(it.key());
      } else if (target->is_array() && !target->empty()) {
        target->erase(target->begin() + static_cast<std::ptrdiff_t>(rng() % target->size()));
      }
      break;
    case 3:  // duplicate an element (a repeated node, output or weight)
      if (target->is_array() && !target->empty() && target->size() < 4096) {
        const json element = (*target)[rng() % target->size()];
        target->insert(target->begin() + static_cast<std::ptrdiff_t>(rng() % target->size()),
                       element);
      }
      break;
    case 4:  // a value of another type
      *target = rng() % 3 == 0 ? json(nullptr) : rng() % 2 ? json::array() : json::object();
      break;
    case 5: {  // copy a subtree over this one
      const Node& source = nodes[rng() % nodes.size()];
      if (picked.depth + source.height <= kMaxDepth && source.value != target) {
        json copy = *source.value;
        *target = std::move(copy);
      }
      break;
    }
    case 6:                               // a number nudged by one
      if (target->is_number_integer()) {  // wrapping, INT64_MIN - 1 included
        const auto value = static_cast<uint64_t>(target->get<int64_t>());
        *target = static_cast<int64_t>(rng() % 2 ? value + 1 : value - 1);
      }
      break;
    default:  // swap two elements (reorders nodes: uses before definitions)
      if (target->is_array() && target->size() >= 2) {
        std::swap((*target)[rng() % target->size()], (*target)[rng() % target->size()]);
      }
      break;
  }
}

// libFuzzer's byte mutations on `bytes`, allowed to grow it by half.
void mutate_bytes(std::string& bytes) {
  const size_t size = bytes.size();
  const size_t max_size = size + size / 2 + 64;
  bytes.resize(max_size);
  bytes.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(bytes.data()), size, max_size));
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937 rng(seed);
  std::optional<inferno::test::ZipRecords> records =
      inferno::test::read_stored_zip({reinterpret_cast<const char*>(data), size});
  if (!records || rng() % 16 == 0) return LLVMFuzzerMutate(data, size, max_size);

  // Prefer the JSON records: they carry the graph.
  std::vector<size_t> json_records;
  for (size_t i = 0; i < records->size(); ++i) {
    if (ends_with((*records)[i].first, ".json")) json_records.push_back(i);
  }
  const bool pick_json = !json_records.empty() && rng() % 4 != 0;
  const size_t index =
      pick_json ? json_records[rng() % json_records.size()] : rng() % records->size();
  std::string& record = (*records)[index].second;

  const int edits = 1 + static_cast<int>(rng() % 3);
  const bool json_edit =
      pick_json && record.size() <= kMaxJsonRecord &&
      static_cast<int>(inferno::frontend::pt2::json_nesting_depth(record)) <= kMaxDepth;
  json parsed = json_edit ? json::parse(record, nullptr, false) : json(json::value_t::discarded);
  if (!parsed.is_discarded()) {
    for (int i = 0; i < edits; ++i) mutate_json(parsed, rng);
    // Strings stay UTF-8 (invalid bytes come from the byte-level mutations instead).
    record = parsed.dump(-1, ' ', false, json::error_handler_t::replace);
  } else if (rng() % 8 == 0) {
    record.resize(rng() % (record.size() + 1));  // truncated
  } else {
    mutate_bytes(record);
  }

  const std::string archive = inferno::test::stored_zip(*records);
  if (archive.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, archive.data(), archive.size());
  return archive.size();
}
