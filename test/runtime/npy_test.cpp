// inferno-run's .npy reader/writer and its bf16 conversions.
#include "npy.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "run_io.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;

namespace {

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

// An .npy image as NumPy writes it: the prelude, `header` padded to `align`, then `data`.
std::string npy_image(std::string header, const std::string& data, size_t align = 64,
                      char major = 1) {
  const size_t unpadded = 10 + header.size() + 1;
  header.append((align - unpadded % align) % align, ' ');
  header += '\n';
  std::string image = std::string("\x93NUMPY", 6) + major + '\0';
  image += static_cast<char>(header.size() & 0xff);
  image += static_cast<char>(header.size() >> 8);
  return image + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string data(values.size() * 4, '\0');
  std::memcpy(data.data(), values.begin(), data.size());
  return data;
}

// The message of the npy::Error that parsing `image` throws.
std::string parse_error(const std::string& image) {
  try {
    inferno::npy::parse(bytes_of(image), "t.npy");
  } catch (const inferno::npy::Error& e) {
    CHECK_FALSE(e.io());
    return e.what();
  }
  return "(parsed)";
}

}  // namespace

TEST_CASE("npy: writes the NumPy v1.0 layout and reads it back", "[runtime][npy]") {
  inferno::npy::Array array{"<f4", {2, 3}, bytes_of(floats({0, 1, 2, 3, 4, 5}))};
  const std::vector<std::byte> image = inferno::npy::serialize(array);
  const std::string expected = npy_image(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", floats({0, 1, 2, 3, 4, 5}));
  CHECK(image == bytes_of(expected));
  CHECK((image.size() - 24) % 64 == 0);

  const inferno::npy::Array back = inferno::npy::parse(image, "t.npy");
  CHECK(back.descr == "<f4");
  CHECK(back.shape == std::vector<int64_t>{2, 3});
  CHECK(back.data == array.data);
}

TEST_CASE("npy: every supported dtype, scalars and 1-d shapes round-trip", "[runtime][npy]") {
  for (const char* descr : {"<f4", "<f2", "<f8", "<i8", "<i4", "|b1"}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {5}, {2, 0, 3}}) {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      inferno::npy::Array array{
          descr, shape,
          std::vector<std::byte>(static_cast<size_t>(n * inferno::npy::itemsize(descr)),
                                 std::byte{1})};
      const auto back = inferno::npy::parse(inferno::npy::serialize(array), "t.npy");
      CHECK(back.descr == descr);
      CHECK(back.shape == shape);
      CHECK(back.data == array.data);
    }
  }
}

TEST_CASE("npy: reads older 16-byte-aligned headers and either quote style", "[runtime][npy]") {
  const auto a = inferno::npy::parse(
      bytes_of(npy_image("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<i4\"}",
                         std::string(12, '\0'), 16)),
      "t.npy");
  CHECK(a.descr == "<i4");
  CHECK(a.shape == std::vector<int64_t>{3});
}

TEST_CASE("npy: refuses malformed and unsupported files with a reason", "[runtime][npy]") {
  const std::string data = floats({1, 2});
  const auto header = [](const std::string& descr, const std::string& order,
                         const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
  };
  CHECK(contains(parse_error("not an npy file at all"), "bad magic"));
  CHECK(
      contains(parse_error(npy_image(header("<f4", "False", "(2,)"), data, 64, 2)), "version 2.0"));
  CHECK(contains(parse_error(npy_image(header("<f4", "True", "(2,)"), data)), "Fortran order"));
  CHECK(contains(parse_error(npy_image(header(">f4", "False", "(2,)"), data)), "dtype '>f4'"));
  CHECK(contains(parse_error(npy_image(header("<u2", "False", "(2,)"), data)), "dtype '<u2'"));
  CHECK(contains(parse_error(npy_image(header("<f4", "False", "(3,)"), data)),
                 "needs 12 data bytes"));
  CHECK(contains(parse_error(npy_image(header("<f4", "False", "(2,)"), data + "x")),
                 "the file has 9"));
  CHECK(contains(parse_error(npy_image("{'descr': '<f4', 'shape': (2,), }", data)), "lacks a key"));
  CHECK(contains(parse_error(npy_image(header("<f4", "Maybe", "(2,)"), data)), "True or False"));
  CHECK(contains(parse_error(npy_image(header("<f4", "False", "(-2,)"), data)), "dimension"));
  CHECK(contains(parse_error(npy_image(header("<f4", "False", "(99999999999999999999,)"), data)),
                 "too large"));
  // A header length pointing past the end of the file.
  std::string truncated = npy_image(header("<f4", "False", "(2,)"), "").substr(0, 40);
  CHECK(contains(parse_error(truncated), "past the end"));
}

TEST_CASE("npy: read and write report I/O failures as I/O", "[runtime][npy]") {
  try {
    inferno::npy::read("/nonexistent/in.npy");
    FAIL("read did not throw");
  } catch (const inferno::npy::Error& e) {
    CHECK(e.io());
  }
  inferno::test::TempDir dir;
  const std::string path = (dir.path() / "a.npy").string();
  inferno::npy::write(path, {"<i8", {1}, std::vector<std::byte>(8, std::byte{7})});
  CHECK(inferno::npy::read(path).descr == "<i8");
}

TEST_CASE("bf16: rounds to nearest even and widens exactly", "[runtime][npy]") {
  using inferno::run::bf16_to_f32;
  using inferno::run::f32_to_bf16;
  const auto from_bits = [](uint32_t bits) {
    float f = 0;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  CHECK(f32_to_bf16(1.0f) == 0x3f80);
  CHECK(f32_to_bf16(from_bits(0x3f808000)) == 0x3f80);  // a tie rounds to even (down)
  CHECK(f32_to_bf16(from_bits(0x3f818000)) == 0x3f82);  // a tie rounds to even (up)
  CHECK(f32_to_bf16(from_bits(0x3f808001)) == 0x3f81);
  CHECK(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
  CHECK(bf16_to_f32(0xc040) == -3.0f);
}

TEST_CASE("f16: rounds f32 to nearest even, saturating to infinity, subnormals kept",
          "[runtime][npy]") {
  using inferno::run::f32_to_f16;
  const auto from_bits = [](uint32_t bits) {
    float f = 0;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  CHECK(f32_to_f16(1.0f) == 0x3c00);
  CHECK(f32_to_f16(-2.0f) == 0xc000);
  CHECK(f32_to_f16(0.0f) == 0x0000);
  CHECK(f32_to_f16(-0.0f) == 0x8000);
  CHECK(f32_to_f16(1.0f / 3.0f) == 0x3555);
  CHECK(f32_to_f16(from_bits(0x3f801000)) == 0x3c00);  // 1 + 2^-11: a tie, to even (down)
  CHECK(f32_to_f16(from_bits(0x3f803000)) == 0x3c02);  // 1 + 3 * 2^-11: a tie, to even (up)
  CHECK(f32_to_f16(from_bits(0x3f801001)) == 0x3c01);
  CHECK(f32_to_f16(from_bits(0x3fffffff)) == 0x4000);  // the carry reaches the exponent
  CHECK(f32_to_f16(65504.0f) == 0x7bff);
  CHECK(f32_to_f16(65519.0f) == 0x7bff);
  CHECK(f32_to_f16(65520.0f) == 0x7c00);
  CHECK(f32_to_f16(-1e30f) == 0xfc00);
  CHECK(f32_to_f16(std::ldexp(1.0f, -14)) == 0x0400);  // the smallest normal
  CHECK(f32_to_f16(std::ldexp(1.0f, -24)) == 0x0001);  // the smallest subnormal
  CHECK(f32_to_f16(std::ldexp(3.0f, -24)) == 0x0003);
  CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0x0000);  // a tie between 0 and 2^-24: to even
  CHECK(f32_to_f16(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(f32_to_f16(std::ldexp(3.0f, -25)) == 0x0002);  // 1.5 units: a tie, to even (up)
  const uint16_t nan = f32_to_f16(std::nanf(""));
  CHECK((nan & 0x7c00) == 0x7c00);
  CHECK((nan & 0x03ff) != 0);
}

TEST_CASE("run_io: f16 inputs take '<f2' as it is or '<f4' rounded, f16 outputs are '<f2'",
          "[runtime][npy]") {
  const int64_t shape[] = {2, 2};
  const inferno_tensor_desc h{"h", INFERNO_DTYPE_F16, 2, shape};
  const std::vector<uint16_t> halves = {0x3c00, 0xc000, 0x3555, 0x7bff};
  std::vector<std::byte> half_bytes(8);
  std::memcpy(half_bytes.data(), halves.data(), 8);
  // '<f2' passes through unchanged; written back as an output it is the same '<f2' file.
  const inferno::npy::Array f2{"<f2", {2, 2}, half_bytes};
  CHECK(inferno::run::input_bytes(f2, h, "in.npy") == half_bytes);
  const auto out = inferno::run::output_array(half_bytes, h);
  CHECK(out.descr == "<f2");
  const auto back =
      inferno::npy::parse(inferno::npy::serialize(out), "out.npy");  // a file round trip
  CHECK(back.descr == "<f2");
  CHECK(back.shape == std::vector<int64_t>{2, 2});
  CHECK(back.data == half_bytes);
  // '<f4' is rounded to f16.
  const inferno::npy::Array f4{"<f4", {2, 2}, bytes_of(floats({1.0f, -2.0f, 1.0f / 3, 65504}))};
  CHECK(inferno::run::input_bytes(f4, h, "in.npy") == half_bytes);
  // Any other dtype, or the wrong shape, is refused naming both forms.
  const inferno::npy::Array f8{"<f8", {2, 2}, std::vector<std::byte>(32)};
  try {
    inferno::run::input_bytes(f8, h, "in.npy");
    FAIL("no error");
  } catch (const inferno::npy::Error& e) {
    CHECK(std::string(e.what()) ==
          "in.npy: input 'h' needs '<f2' (or '<f4', rounded) [2,2], the file has '<f8' [2,2]");
  }
}

TEST_CASE("run_io: an input file must match the input's dtype and shape", "[runtime][npy]") {
  const int64_t shape[] = {4, 8};
  const inferno_tensor_desc x{"x", INFERNO_DTYPE_F32, 2, shape};
  inferno::npy::Array array{"<f4", {4, 7}, std::vector<std::byte>(4 * 7 * 4)};
  try {
    inferno::run::input_bytes(array, x, "in.npy");
    FAIL("no error");
  } catch (const inferno::npy::Error& e) {
    CHECK(std::string(e.what()) == "in.npy: input 'x' needs '<f4' [4,8], the file has '<f4' [4,7]");
  }
  const inferno_tensor_desc b{"b", INFERNO_DTYPE_BF16, 2, shape};
  array.shape = {4, 8};
  array.data.assign(4 * 8 * 4, std::byte{0});
  CHECK(inferno::run::input_bytes(array, b, "in.npy").size() == 4 * 8 * 2);
  const auto widened = inferno::run::output_array(std::vector<std::byte>(64), b);
  CHECK(widened.descr == "<f4");
  CHECK(widened.data.size() == 128);
}
