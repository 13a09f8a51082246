// NumPy .npy files. Layout: the magic "\x93NUMPY", major and minor version bytes, the header
// length (u16 little-endian for 1.0, u32 for 2.0 and 3.0), the header (a Python dict literal
// such as `{'descr': '<f4', 'fortran_order': False, 'shape': (4, 16), }`, padded with spaces
// and ended by '\n'), then the raw array bytes.
//
// The header is read by a small strict parser for exactly that dict form (three known keys in
// any order, single- or double-quoted strings without escapes, tuples of non-negative ints with
// an optional trailing comma); anything else is refused rather than guessed at. Every size
// read from the file is bounds-checked before it is used.
#include "support/npy.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "support/file_io.h"

namespace inferno {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr uint64_t kMaxHeaderBytes = 1 << 20;
constexpr size_t kAlign = 64;  // NumPy's ARRAY_ALIGN: data starts at a multiple of this

constexpr std::array<std::pair<std::string_view, int64_t>, 7> kDescrs = {{
    {"<f4", 4},
    {"<f8", 8},
    {"<f2", 2},
    {"<i8", 8},
    {"<i4", 4},
    {"|b1", 1},
    {"|u1", 1},
}};

std::string shape_repr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// numel * itemsize of `shape`, or -1 if a dim is negative or the product overflows int64.
int64_t checked_nbytes(const std::vector<int64_t>& shape, int64_t itemsize) {
  int64_t n = itemsize;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

/// Checks descr support and the shape's size; returns numel * itemsize.
Expected<int64_t> check_array_type(const std::string& descr, const std::vector<int64_t>& shape,
                                   const std::string& what) {
  if (!descr.empty() && descr[0] == '>') {
    return invalid_input(what + ": big-endian npy data ('" + descr +
                         "') is not supported; save it little-endian");
  }
  const int64_t itemsize = npy_itemsize(descr);
  if (itemsize == 0) {
    return invalid_input(what + ": unsupported npy dtype '" + descr +
                         "' (supported: <f4, <f8, <f2, <i8, <i4, |b1, |u1)");
  }
  const int64_t nbytes = checked_nbytes(shape, itemsize);
  if (nbytes < 0)
    return invalid_input(what + ": npy shape " + shape_repr(shape) + " is invalid or too large");
  return nbytes;
}

/// Parser for the header dict; see the file comment for the accepted form.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  Status parse(NpyArray& array) {
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    skip_space();
    if (!consume('{')) return error("expected '{'");
    for (;;) {
      skip_space();
      if (consume('}')) break;
      std::string key;
      INFERNO_RETURN_IF_ERROR(parse_string(key));
      skip_space();
      if (!consume(':')) return error("expected ':' after '" + key + "'");
      skip_space();
      bool* seen = key == "descr"           ? &have_descr
                   : key == "fortran_order" ? &have_order
                   : key == "shape"         ? &have_shape
                                            : nullptr;
      if (seen == nullptr) return error("unexpected key '" + key + "'");
      if (*seen) return error("duplicate key '" + key + "'");
      *seen = true;
      if (key == "descr") INFERNO_RETURN_IF_ERROR(parse_string(array.descr));
      if (key == "fortran_order") INFERNO_RETURN_IF_ERROR(parse_bool(fortran));
      if (key == "shape") INFERNO_RETURN_IF_ERROR(parse_shape(array.shape));
      skip_space();
      if (consume(',')) continue;
      if (!consume('}')) return error("expected ',' or '}'");
      break;
    }
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
    if (pos_ != text_.size()) return error("unexpected text after the dict");
    if (!have_descr || !have_order || !have_shape)
      return error("the dict needs the keys 'descr', 'fortran_order' and 'shape'");
    if (fortran) {
      return invalid_input(
          what_ + ": fortran-order npy arrays are not supported; save a C-contiguous array");
    }
    return Status::ok();
  }

 private:
  Status error(const std::string& problem) const {
    constexpr size_t kShown = 200;
    const std::string shown(text_.substr(0, kShown));
    return invalid_input(what_ + ": malformed npy header: " + problem + " at offset " +
                         std::to_string(pos_) + " in \"" + shown +
                         (text_.size() > kShown ? "..." : "") + "\"");
  }
  void skip_space() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool consume(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  Status parse_string(std::string& out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return error("expected a quoted string");
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return error("unterminated string");
    out = std::string(text_.substr(pos_, end - pos_));
    if (out.find('\\') != std::string::npos) return error("escapes in strings are not supported");
    pos_ = end + 1;
    return Status::ok();
  }
  Status parse_bool(bool& out) {
    for (const auto& [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        out = value;
        return Status::ok();
      }
    }
    return error("expected True or False");
  }
  Status parse_shape(std::vector<int64_t>& out) {
    if (!consume('(')) return error("expected a tuple for 'shape'");
    bool trailing_comma = false;
    for (;;) {
      skip_space();
      if (consume(')')) break;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return error("expected a non-negative integer in 'shape'");
      int64_t dim = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (__builtin_mul_overflow(dim, 10, &dim) ||
            __builtin_add_overflow(dim, text_[pos_] - '0', &dim)) {
          return error("dimension too large in 'shape'");
        }
        ++pos_;
      }
      out.push_back(dim);
      skip_space();
      trailing_comma = consume(',');
      if (!trailing_comma) {
        skip_space();
        if (!consume(')')) return error("expected ',' or ')' in 'shape'");
        break;
      }
    }
    if (out.size() == 1 && !trailing_comma)
      return error("a one-element shape needs a trailing comma, as in (4,)");
    return Status::ok();
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

uint64_t read_le(const std::vector<std::byte>& bytes, size_t offset, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= static_cast<uint64_t>(bytes[offset + i]) << (8 * i);
  return v;
}

}  // namespace

int64_t npy_itemsize(std::string_view descr) {
  for (const auto& [name, size] : kDescrs) {
    if (name == descr) return size;
  }
  return 0;
}

Expected<NpyArray> parse_npy(const std::vector<std::byte>& bytes, const std::string& what) {
  if (bytes.size() < kMagicSize || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    return invalid_input(what + ": not an .npy file (bad magic)");
  }
  if (bytes.size() < kMagicSize + 2)
    return invalid_input(what + ": truncated npy header (no version)");
  const int major = static_cast<int>(bytes[6]), minor = static_cast<int>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return invalid_input(what + ": unsupported npy format version " + std::to_string(major) + "." +
                         std::to_string(minor));
  }
  const size_t len_width = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + len_width;
  if (bytes.size() < header_start)
    return invalid_input(what + ": truncated npy header (no header length)");
  const uint64_t header_len = read_le(bytes, kMagicSize + 2, len_width);
  if (header_len > kMaxHeaderBytes) {
    return invalid_input(what + ": npy header length " + std::to_string(header_len) +
                         " exceeds the 1 MiB limit");
  }
  if (header_len > bytes.size() - header_start) {
    return invalid_input(what + ": npy header length " + std::to_string(header_len) +
                         " extends beyond the end of the file (" + std::to_string(bytes.size()) +
                         " bytes)");
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + header_start,
                                header_len);

  NpyArray array;
  INFERNO_RETURN_IF_ERROR(HeaderParser(header, what).parse(array));
  INFERNO_ASSIGN_OR_RETURN(const int64_t nbytes, check_array_type(array.descr, array.shape, what));
  const size_t data_start = header_start + header_len;
  const uint64_t available = bytes.size() - data_start;
  if (available != static_cast<uint64_t>(nbytes)) {
    return invalid_input(
        what + ": npy data is " + std::to_string(available) + " bytes, expected " +
        std::to_string(nbytes) + " for '" + array.descr + "' " + shape_repr(array.shape) +
        (available < static_cast<uint64_t>(nbytes) ? " (truncated file)" : " (trailing bytes)"));
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return array;
}

Expected<std::vector<std::byte>> serialize_npy(const NpyArray& array) {
  INFERNO_ASSIGN_OR_RETURN(const int64_t nbytes,
                           check_array_type(array.descr, array.shape, "npy array"));
  if (array.data.size() != static_cast<uint64_t>(nbytes)) {
    return invalid_input("npy array: data is " + std::to_string(array.data.size()) +
                         " bytes, expected " + std::to_string(nbytes) + " for '" + array.descr +
                         "' " + shape_repr(array.shape));
  }
  const std::string dict = "{'descr': '" + array.descr +
                           "', 'fortran_order': False, 'shape': " + shape_repr(array.shape) + ", }";
  // Version 1.0 unless the padded header overflows its u16 length field (then 2.0, as NumPy does).
  size_t prefix = kMagicSize + 2 + 2;
  size_t header_len = (dict.size() + 1 + prefix + kAlign - 1) / kAlign * kAlign - prefix;
  if (header_len > std::numeric_limits<uint16_t>::max()) {
    prefix = kMagicSize + 2 + 4;
    header_len = (dict.size() + 1 + prefix + kAlign - 1) / kAlign * kAlign - prefix;
  }
  std::string head(kMagic, kMagicSize);
  head += static_cast<char>(prefix == 10 ? 1 : 2);
  head += '\0';
  for (size_t i = 0; i < prefix - kMagicSize - 2; ++i)
    head += static_cast<char>((header_len >> (8 * i)) & 0xff);
  head += dict;
  head.append(header_len - dict.size() - 1, ' ');
  head += '\n';

  std::vector<std::byte> out(head.size() + array.data.size());
  std::memcpy(out.data(), head.data(), head.size());
  if (!array.data.empty())
    std::memcpy(out.data() + head.size(), array.data.data(), array.data.size());
  return out;
}

Expected<NpyArray> read_npy(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return read_error(path, errno);
  std::vector<std::byte> bytes;
  std::array<std::byte, 1 << 16> chunk;
  size_t n = 0;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), f)) > 0)
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) return read_error(path, err);
  return parse_npy(bytes, path);
}

Status write_npy(const std::string& path, const NpyArray& array) {
  INFERNO_ASSIGN_OR_RETURN(const std::vector<std::byte> image, serialize_npy(array));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    return io_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  const bool written = std::fwrite(image.data(), 1, image.size(), f) == image.size();
  const int err = errno;
  if (std::fclose(f) != 0 || !written) {
    std::remove(path.c_str());  // never leave a partial file behind
    return io_error("cannot write '" + path + "': " + std::strerror(written ? errno : err));
  }
  return Status::ok();
}

}  // namespace inferno
