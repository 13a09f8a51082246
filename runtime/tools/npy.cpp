// .npy layout (v1.0): "\x93NUMPY", major 1, minor 0, a little-endian uint16 header length, then an
// ASCII Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), } padded
// with spaces and ended by '\n', then the data. The parser below reads exactly that dict grammar.
#include "npy.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace inferno::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kPreludeSize = 10;  // magic, two version bytes, uint16 header length

[[noreturn]] void malformed(const std::string& what, const std::string& why) {
  throw Error(what + ": not a supported .npy file: " + why, false);
}

// The header dict, one token at a time.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  void parse(std::string& descr, bool& fortran_order, std::vector<int64_t>& shape) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!consume('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr" && !seen_descr) {
        descr = quoted();
        seen_descr = true;
      } else if (key == "fortran_order" && !seen_order) {
        fortran_order = boolean();
        seen_order = true;
      } else if (key == "shape" && !seen_shape) {
        shape = tuple();
        seen_shape = true;
      } else {
        malformed(what_, "unexpected header key '" + key + "'");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    if (!seen_descr || !seen_order || !seen_shape) malformed(what_, "header lacks a key");
    skip_space();
    if (pos_ != text_.size()) malformed(what_, "junk after the header dict");
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) malformed(what_, std::string("expected '") + c + "' in the header");
  }
  std::string quoted() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      malformed(what_, "expected a quoted string in the header");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) malformed(what_, "unterminated string in the header");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t n = std::strlen(word);
      if (text_.substr(pos_, n) == word) {
        pos_ += n;
        return value;
      }
    }
    malformed(what_, "expected True or False in the header");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!consume(')')) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
        malformed(what_, "expected a dimension in the shape");
      }
      int64_t dim = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (dim > (std::numeric_limits<int64_t>::max() - 9) / 10)
          malformed(what_, "dimension too large");
        dim = dim * 10 + (text_[pos_++] - '0');
      }
      dims.push_back(dim);
      if (dims.size() > 32) malformed(what_, "too many dimensions");
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (int64_t d : shape) text += std::to_string(d) + ", ";
  if (shape.size() == 1)
    text.resize(text.size() - 1);  // "(4,)"
  else if (!shape.empty())
    text.resize(text.size() - 2);  // "(4, 8)"
  return text + ")";
}

}  // namespace

int64_t itemsize(std::string_view descr) {
  if (descr == "<f4" || descr == "<i4") return 4;
  if (descr == "<f8" || descr == "<i8") return 8;
  if (descr == "<f2") return 2;
  if (descr == "|b1") return 1;
  return 0;
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      throw Error("shape too large or negative", false);
  }
  return n;
}

Array parse(const std::vector<std::byte>& bytes, const std::string& what) {
  if (bytes.size() < kPreludeSize || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    malformed(what, "bad magic");
  }
  const auto u8 = [&](size_t i) { return static_cast<unsigned>(bytes[i]); };
  if (u8(6) != 1 || u8(7) != 0) {
    malformed(what, "version " + std::to_string(u8(6)) + "." + std::to_string(u8(7)) +
                        " (only 1.0 is read)");
  }
  const size_t header_size = u8(8) | (u8(9) << 8);
  if (kPreludeSize + header_size > bytes.size()) malformed(what, "header runs past the end");
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + kPreludeSize,
                                header_size);

  Array array;
  bool fortran_order = false;
  HeaderParser(header, what).parse(array.descr, fortran_order, array.shape);
  if (fortran_order) malformed(what, "Fortran order");
  const int64_t size = itemsize(array.descr);
  if (size == 0) malformed(what, "dtype '" + array.descr + "'");
  int64_t data_size = 0;
  if (__builtin_mul_overflow(element_count(array.shape), size, &data_size) ||
      static_cast<uint64_t>(data_size) != bytes.size() - kPreludeSize - header_size) {
    malformed(what, "shape " + shape_text(array.shape) + " of '" + array.descr + "' needs " +
                        std::to_string(data_size) + " data bytes, the file has " +
                        std::to_string(bytes.size() - kPreludeSize - header_size));
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(kPreludeSize + header_size),
                    bytes.end());
  return array;
}

std::vector<std::byte> serialize(const Array& array) {
  const int64_t size = itemsize(array.descr);
  if (size == 0) throw Error("cannot write dtype '" + array.descr + "' to .npy", false);
  if (static_cast<uint64_t>(element_count(array.shape) * size) != array.data.size()) {
    throw Error("array data does not match its shape " + shape_text(array.shape), false);
  }
  std::string header = "{'descr': '" + array.descr +
                       "', 'fortran_order': False, 'shape': " + shape_text(array.shape) + ", }";
  const size_t unpadded = kPreludeSize + header.size() + 1;  // +1 for the final '\n'
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff) throw Error("shape too long for a version 1.0 .npy header", false);

  std::vector<std::byte> out(kPreludeSize + header.size() + array.data.size());
  std::memcpy(out.data(), kMagic, kMagicSize);
  out[6] = std::byte{1};
  out[7] = std::byte{0};
  out[8] = static_cast<std::byte>(header.size() & 0xff);
  out[9] = static_cast<std::byte>(header.size() >> 8);
  std::memcpy(out.data() + kPreludeSize, header.data(), header.size());
  std::copy(array.data.begin(), array.data.end(),
            out.begin() + static_cast<std::ptrdiff_t>(kPreludeSize + header.size()));
  return out;
}

Array read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!in || ec) {
    // Worded as infernoc words it.
    const bool missing = !std::filesystem::exists(path, ec);
    throw Error("cannot read '" + path + "'" + (missing ? ": no such file" : ""), true);
  }
  std::vector<std::byte> bytes(size);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    throw Error("cannot read '" + path + "'", true);
  }
  return parse(bytes, path);
}

void write(const std::string& path, const Array& array) {
  const std::vector<std::byte> bytes = serialize(array);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw Error("cannot write '" + path + "'", true);
}

}  // namespace inferno::npy
