#include "codegen/source_writer.h"

#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "support/check.h"

namespace inferno::codegen {

void SourceWriter::line(std::string_view text) {
  if (!text.empty()) text_.append(static_cast<size_t>(depth_) * 2, ' ');
  text_ += text;
  text_ += '\n';
}

void SourceWriter::insert_line(size_t offset, std::string_view text) {
  INFERNO_CHECK(offset <= text_.size() && (offset == 0 || text_[offset - 1] == '\n'),
                "SourceWriter::insert_line: not at a line start");
  std::string indented(text.empty() ? 0 : static_cast<size_t>(depth_) * 2, ' ');
  indented += text;
  indented += '\n';
  text_.insert(offset, indented);
}

void SourceWriter::lines(std::string_view text) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    line(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

void SourceWriter::open(std::string_view text) {
  line(text.empty() ? std::string("{") : std::string(text) + " {");
  ++depth_;
}

void SourceWriter::close(std::string_view closing) {
  dedent();
  line(closing);
}

void SourceWriter::dedent() {
  INFERNO_CHECK(depth_ > 0, "SourceWriter: dedent below zero");
  --depth_;
}

void SourceWriter::append(const SourceWriter& other) { lines(other.text()); }

std::string comment_text(std::string_view text, size_t max_length) {
  std::string out;
  for (const char c : text.substr(0, std::min(text.size(), max_length))) {
    const auto byte = static_cast<unsigned char>(c);
    char safe = (byte < 0x20 || byte > 0x7e || c == '\\') ? '?' : c;
    if (safe == '?' && !out.empty() && out.back() == '?') safe = '.';  // no trigraph ("??/")
    out += safe;
  }
  if (text.size() > max_length) out += "...";
  return out;
}

std::string c_string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte > 0x7e) {
      char octal[5];
      std::snprintf(octal, sizeof octal, "\\%03o", byte);
      out += octal;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string value_identifier(std::string_view name) {
  std::string out = "v_";
  for (const char c : name.substr(0, std::min<size_t>(name.size(), 62))) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

std::string float_literal(float value) {
  if (!std::isfinite(value)) {
    char bits[40];
    std::snprintf(bits, sizeof bits, "__uint_as_float(0x%08" PRIx32 "u)",
                  std::bit_cast<uint32_t>(value));
    return bits;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out + "f";
}

std::string double_literal(double value) {
  if (!std::isfinite(value)) {
    char bits[48];
    std::snprintf(bits, sizeof bits, "__longlong_as_double(0x%016" PRIx64 "ll)",
                  std::bit_cast<uint64_t>(value));
    return bits;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string decimal(int64_t value) { return std::to_string(value); }

std::string int_literal(int64_t value) {
  if (value == INT64_MIN) return "(-9223372036854775807ll - 1)";
  return std::to_string(value) + "ll";
}

std::string named_args(const NamedArgs& args) {
  std::string out;
  for (const auto& [name, value] : args) {
    out += (out.empty() ? "" : ", ") + ("/* " + name + " */ ") + value;
  }
  return out;
}

}  // namespace inferno::codegen
