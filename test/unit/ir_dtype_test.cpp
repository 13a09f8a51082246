// DTypes: names, sizes, promotion; f16/bf16 conversions against known bit patterns; Tensor
// element access for every dtype.
#include <bit>
#include <cmath>
#include <limits>

#include "ir/dtype.h"
#include "ir/tensor_type.h"
#include "support/catch.h"
#include "support/half.h"

namespace inferno::ir {
namespace {

TEST_CASE("dtype names round-trip") {
  for (DType d : kAllDTypes) {
    INFO(dtype_name(d));
    REQUIRE(parse_dtype(dtype_name(d)).has_value());
    CHECK(*parse_dtype(dtype_name(d)) == d);
  }
  CHECK(dtype_name(DType::kBF16) == "bf16");
  CHECK_FALSE(parse_dtype("f8").has_value());
  CHECK_FALSE(parse_dtype("F32").has_value());
  CHECK_FALSE(parse_dtype("").has_value());
}

TEST_CASE("dtype sizes and categories") {
  struct Row {
    DType dtype;
    int64_t size;
    bool floating, integral;
  };
  const Row rows[] = {{DType::kF32, 4, true, false},  {DType::kF16, 2, true, false},
                      {DType::kBF16, 2, true, false}, {DType::kF64, 8, true, false},
                      {DType::kI64, 8, false, true},  {DType::kI32, 4, false, true},
                      {DType::kBool, 1, false, false}};
  for (const Row& r : rows) {
    INFO(dtype_name(r.dtype));
    CHECK(dtype_size(r.dtype) == r.size);
    CHECK(is_floating(r.dtype) == r.floating);
    CHECK(is_integral(r.dtype) == r.integral);
  }
}

TEST_CASE("promote_types matches torch.promote_types") {
  using enum DType;
  // Rows and columns in kAllDTypes order: f32, f16, bf16, f64, i64, i32, bool.
  const DType table[7][7] = {
      /* f32  */ {kF32, kF32, kF32, kF64, kF32, kF32, kF32},
      /* f16  */ {kF32, kF16, kF32, kF64, kF16, kF16, kF16},
      /* bf16 */ {kF32, kF32, kBF16, kF64, kBF16, kBF16, kBF16},
      /* f64  */ {kF64, kF64, kF64, kF64, kF64, kF64, kF64},
      /* i64  */ {kF32, kF16, kBF16, kF64, kI64, kI64, kI64},
      /* i32  */ {kF32, kF16, kBF16, kF64, kI64, kI32, kI32},
      /* bool */ {kF32, kF16, kBF16, kF64, kI64, kI32, kBool},
  };
  for (int r = 0; r < 7; ++r) {
    for (int c = 0; c < 7; ++c) {
      INFO(dtype_name(kAllDTypes[r]) << " + " << dtype_name(kAllDTypes[c]));
      CHECK(promote_types(kAllDTypes[r], kAllDTypes[c]) == table[r][c]);
    }
  }
}

float pow2(int e) { return std::ldexp(1.0f, e); }

TEST_CASE("float to f16 bits, round to nearest even") {
  struct Row {
    float value;
    uint16_t bits;
  };
  const Row rows[] = {
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {65504.0f, 0x7bff},
      {65519.0f, 0x7bff},
      {65520.0f, 0x7c00},
      {1e10f, 0x7c00},
      {0.1f, 0x2e66},
      {pow2(-14), 0x0400},
      {pow2(-24), 0x0001},
      {pow2(-25), 0x0000},
      {3 * pow2(-25), 0x0002},
      {-pow2(-25), 0x8000},
      {-0.0f, 0x8000},
      {0.0f, 0x0000},
      {1.0f + pow2(-11), 0x3c00},
      {1.0f + 3 * pow2(-11), 0x3c02},
      {std::numeric_limits<float>::infinity(), 0x7c00},
      {-std::numeric_limits<float>::infinity(), 0xfc00},
  };
  for (const Row& r : rows) {
    INFO(r.value);
    CHECK(float_to_half_bits(r.value) == r.bits);
  }
  const uint16_t nan = float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7c00) == 0x7c00);
  CHECK((nan & 0x03ff) != 0);
  CHECK(std::isnan(half_bits_to_float(nan)));
  CHECK(std::isnan(
      half_bits_to_float(float_to_half_bits(std::bit_cast<float>(0x7f800001u)))));  // signaling
}

TEST_CASE("f16 bits to float") {
  CHECK(half_bits_to_float(0x3c00) == 1.0f);
  CHECK(half_bits_to_float(0x7bff) == 65504.0f);
  CHECK(half_bits_to_float(0x0001) == pow2(-24));
  CHECK(half_bits_to_float(0x03ff) == 1023 * pow2(-24));
  CHECK(half_bits_to_float(0x2e66) == 0.0999755859375f);
  CHECK(std::signbit(half_bits_to_float(0x8000)));
  CHECK(half_bits_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_bits_to_float(0x7e00)));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {  // every non-nan half survives a round trip
    const auto h = static_cast<uint16_t>(bits);
    if (std::isnan(half_bits_to_float(h))) continue;
    INFO(bits);
    REQUIRE(float_to_half_bits(half_bits_to_float(h)) == h);
  }
}

TEST_CASE("float to bf16 bits, round to nearest even") {
  struct Row {
    uint32_t f32_bits;
    uint16_t bits;
  };
  const Row rows[] = {
      {0x3f800000, 0x3f80},  // 1.0
      {0x3dcccccd, 0x3dcd},  // 0.1f
      {0x3f808000, 0x3f80},  // halfway, even below
      {0x3f818000, 0x3f82},  // halfway, even above
      {0x3f808001, 0x3f81},  // just above halfway
      {0x3f807fff, 0x3f80},  // just below halfway
      {0x80000000, 0x8000},  // -0.0
      {0x7f800000, 0x7f80},  // inf
      {0x7f7fffff, 0x7f80},  // FLT_MAX rounds to inf
      {0x00000001, 0x0000},  // the smallest subnormal rounds to zero
  };
  for (const Row& r : rows) {
    INFO(std::hex << r.f32_bits);
    CHECK(float_to_bf16_bits(std::bit_cast<float>(r.f32_bits)) == r.bits);
  }
  CHECK(bf16_bits_to_float(0x3f80) == 1.0f);
  CHECK(bf16_bits_to_float(0x3dcd) == 0.10009765625f);
  CHECK(
      std::isnan(bf16_bits_to_float(float_to_bf16_bits(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isnan(
      bf16_bits_to_float(float_to_bf16_bits(std::bit_cast<float>(0x7f800001u)))));  // not inf
}

TEST_CASE("Tensor get, read_doubles and set for every dtype") {
  struct Row {
    DType dtype;
    double stored;
    double read_back;
  };
  const Row rows[] = {
      {DType::kF32, 0.1, static_cast<double>(0.1f)},
      {DType::kF64, 0.1, 0.1},
      {DType::kF16, 0.1, 0.0999755859375},
      {DType::kBF16, 0.1, 0.10009765625},
      {DType::kI64, -9007199254740992.0, -9007199254740992.0},
      {DType::kI32, -7.0, -7.0},
      {DType::kBool, 2.5, 1.0},
      {DType::kBool, 0.0, 0.0},
  };
  for (const Row& r : rows) {
    INFO(dtype_name(r.dtype) << " " << r.stored);
    Tensor t = Tensor::zeros({r.dtype, {2, 3}});
    CHECK(t.numel() == 6);
    CHECK(static_cast<int64_t>(t.data.size()) == 6 * dtype_size(r.dtype));
    t.set(4, r.stored);
    CHECK(t.get(4) == r.read_back);
    CHECK(t.get(3) == 0.0);
    CHECK(t.get(5) == 0.0);
    double range[3] = {-1, -1, -1};
    t.read_doubles(3, 3, range);
    CHECK(range[0] == 0.0);
    CHECK(range[1] == r.read_back);
    CHECK(range[2] == 0.0);
  }
}

TEST_CASE("TensorType printing and sizes") {
  CHECK(TensorType{DType::kF32, {4, 16}}.to_string() == "f32[4,16]");
  CHECK(TensorType{DType::kBool, {}}.to_string() == "bool[]");
  CHECK(TensorType{DType::kF16, {}}.numel() == 1);
  CHECK(TensorType{DType::kF16, {3, 0}}.numel() == 0);
  CHECK(TensorType{DType::kI64, {2, 3}}.size_bytes() == 48);
  CHECK(contiguous_strides({2, 3, 4}) == std::vector<int64_t>{12, 4, 1});
}

}  // namespace
}  // namespace inferno::ir
