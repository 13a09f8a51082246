// .npy reading and writing: round trips for every supported dtype and rank, NumPy's exact header
// layout, hand-made images for the header forms NumPy can produce (versions 2.0/3.0, any key
// order), and one test per malformed input, each of which must give a Status that names the
// problem rather than crash.
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/npy.h"

namespace inferno {
namespace {

std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

/// A hand-written image: `version` (1, 2 or 3), header text as given (no padding added), data.
std::vector<std::byte> image(int version, const std::string& header, size_t data_bytes) {
  std::string s = std::string("\x93NUMPY", 6) + static_cast<char>(version) + '\0';
  const size_t width = version == 1 ? 2 : 4;
  for (size_t i = 0; i < width; ++i) s += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  s += header;
  s.append(data_bytes, '\x01');
  return to_bytes(s);
}

NpyArray array_of(const std::string& descr, std::vector<int64_t> shape) {
  NpyArray a{descr, std::move(shape), {}};
  int64_t n = npy_itemsize(descr);
  for (int64_t d : a.shape) n *= d;
  for (int64_t i = 0; i < n; ++i) a.data.push_back(static_cast<std::byte>((i * 37 + 11) % 251));
  return a;
}

/// Parses `bytes` and expects an invalid-input error whose message contains `part`.
void expect_error(const std::vector<std::byte>& bytes, const std::string& part) {
  Expected<NpyArray> r = parse_npy(bytes, "in.npy");
  REQUIRE_FALSE(r.has_value());
  INFO("message: " << r.status().message());
  CHECK(r.status().code() == ErrorCode::kInvalidInput);
  CHECK(r.status().message().find("in.npy") != std::string::npos);
  CHECK(r.status().message().find(part) != std::string::npos);
}

/// A fresh directory under the system temp dir, removed with everything in it at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("inferno_npy_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

TEST_CASE("npy: serialize -> parse round trip for every dtype and rank") {
  for (const char* descr : {"<f4", "<f8", "<f2", "<i8", "<i4", "|b1", "|u1"}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {5}, {2, 3, 4}, {0, 3}}) {
      const NpyArray a = array_of(descr, shape);
      INFO(descr << " rank " << shape.size());
      Expected<std::vector<std::byte>> bytes = serialize_npy(a);
      REQUIRE(bytes.has_value());
      Expected<NpyArray> back = parse_npy(*bytes, "round trip");
      REQUIRE(back.has_value());
      CHECK(back->descr == a.descr);
      CHECK(back->shape == a.shape);
      CHECK(back->data == a.data);
    }
  }
}

TEST_CASE("npy: the written layout is NumPy's") {
  Expected<std::vector<std::byte>> bytes = serialize_npy(array_of("<f4", {4, 16}));
  REQUIRE(bytes.has_value());
  REQUIRE(bytes->size() == 128 + 4 * 16 * 4);
  const std::string head(reinterpret_cast<const char*>(bytes->data()), 128);
  // version 1.0, header length 118 ('v'), data at byte 128, header ended by '\n'.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 16), }";
  CHECK(head == std::string("\x93NUMPY\x01\x00v\x00", 10) + dict +
                    std::string(128 - 10 - dict.size() - 1, ' ') + "\n");
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{}, {7}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}) {
    Expected<std::vector<std::byte>> b = serialize_npy(array_of("|u1", shape));
    REQUIRE(b.has_value());
    const auto data_start =
        static_cast<size_t>(b->size() - static_cast<size_t>(array_of("|u1", shape).data.size()));
    CHECK(data_start % 64 == 0);
    CHECK((*b)[data_start - 1] == std::byte{'\n'});
  }
  const std::string scalar(
      reinterpret_cast<const char*>(serialize_npy(array_of("<i8", {}))->data()), 128);
  CHECK(scalar.find("'shape': (), }") != std::string::npos);
  const std::string vec(reinterpret_cast<const char*>(serialize_npy(array_of("<i8", {3}))->data()),
                        128);
  CHECK(vec.find("'shape': (3,), }") != std::string::npos);
}

TEST_CASE("npy: a header too long for version 1.0 is written as 2.0") {
  const NpyArray a = array_of("<f4", std::vector<int64_t>(30000, 1));
  Expected<std::vector<std::byte>> bytes = serialize_npy(a);
  REQUIRE(bytes.has_value());
  CHECK((*bytes)[6] == std::byte{2});
  Expected<NpyArray> back = parse_npy(*bytes, "v2");
  REQUIRE(back.has_value());
  CHECK(back->shape == a.shape);
}

TEST_CASE("npy: accepted header forms") {
  SECTION("keys in any order, versions 2.0 and 3.0, no trailing comma, padding") {
    for (int version : {1, 2, 3}) {
      Expected<NpyArray> r = parse_npy(
          image(version, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i4'}   \n", 24),
          "x");
      REQUIRE(r.has_value());
      CHECK(r->descr == "<i4");
      CHECK(r->shape == std::vector<int64_t>{2, 3});
      CHECK(r->data.size() == 24);
    }
  }
  SECTION("trailing commas and a scalar") {
    Expected<NpyArray> r = parse_npy(
        image(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3,), }\n", 48), "x");
    REQUIRE(r.has_value());
    Expected<NpyArray> s = parse_npy(
        image(1, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": ()}\n", 8), "x");
    REQUIRE(s.has_value());
    CHECK(s->shape.empty());
  }
}

TEST_CASE("npy: malformed images give a Status naming the problem") {
  const std::string ok_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::vector<std::byte> good = image(1, ok_header, 8);
  REQUIRE(parse_npy(good, "in.npy").has_value());

  SECTION("bad magic") { expect_error(to_bytes("PK\x03\x04 not npy at all"), "bad magic"); }
  SECTION("empty file") { expect_error({}, "bad magic"); }
  SECTION("truncated header") { expect_error({good.begin(), good.begin() + 9}, "truncated"); }
  SECTION("unsupported version") {
    std::vector<std::byte> b = good;
    b[6] = std::byte{4};
    expect_error(b, "version 4.0");
  }
  SECTION("header length beyond the file") {
    expect_error({good.begin(), good.begin() + 30}, "beyond the end");
  }
  SECTION("header length over 1 MiB") {
    std::vector<std::byte> b = image(2, ok_header, 8);
    b[8] = std::byte{0};
    b[9] = std::byte{0};
    b[10] = std::byte{0x20};  // 0x200000: 2 MiB
    b[11] = std::byte{0};
    expect_error(b, "1 MiB");
  }
  SECTION("data too short") { expect_error(image(1, ok_header, 7), "truncated"); }
  SECTION("data too long") { expect_error(image(1, ok_header, 9), "trailing bytes"); }
  SECTION("fortran order") {
    expect_error(image(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", 16),
                 "fortran-order");
  }
  SECTION("big endian") {
    expect_error(image(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", 8),
                 "big-endian");
  }
  SECTION("unknown descr") {
    expect_error(image(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", 16),
                 "unsupported npy dtype '<c8'");
  }
  SECTION("absurd shape") {
    expect_error(
        image(
            1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }\n",
            0),
        "too large");
    expect_error(
        image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n",
              0),
        "too large");
  }
  SECTION("malformed dicts") {
    expect_error(image(1, "{'descr': '<f4', 'shape': (2,), }\n", 8), "needs the keys");
    expect_error(
        image(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", 8),
        "duplicate key");
    expect_error(
        image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}\n", 8),
        "unexpected key");
    expect_error(image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}\n", 8),
                 "trailing comma");
    expect_error(image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}\n", 8),
                 "non-negative");
    expect_error(image(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}\n", 8),
                 "True or False");
    expect_error(image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x\n", 8),
                 "after the dict");
    expect_error(image(1, "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}\n", 8),
                 "malformed npy header");
    expect_error(image(1, "", 8), "expected '{'");
  }
}

TEST_CASE("npy: serialize refuses arrays that do not describe themselves") {
  NpyArray a = array_of("<f4", {3});
  a.data.pop_back();
  Expected<std::vector<std::byte>> r = serialize_npy(a);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == ErrorCode::kInvalidInput);
  Expected<std::vector<std::byte>> c =
      serialize_npy(NpyArray{"<c8", {1}, std::vector<std::byte>(8)});
  REQUIRE_FALSE(c.has_value());
  CHECK(c.status().message().find("unsupported npy dtype") != std::string::npos);
}

TEST_CASE("npy: files") {
  TempDir dir;
  const std::string path = (dir.path / "a.npy").string();
  const NpyArray a = array_of("<f2", {2, 2, 3});
  REQUIRE(write_npy(path, a).is_ok());
  Expected<NpyArray> back = read_npy(path);
  REQUIRE(back.has_value());
  CHECK(back->shape == a.shape);
  CHECK(back->data == a.data);

  const std::string missing = (dir.path / "missing.npy").string();
  Expected<NpyArray> r = read_npy(missing);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == ErrorCode::kIo);
  CHECK(r.status().message().find(missing) != std::string::npos);

  const std::string unwritable = (dir.path / "no_such_dir" / "b.npy").string();
  Status w = write_npy(unwritable, a);
  CHECK(w.code() == ErrorCode::kIo);
  CHECK(w.message().find(unwritable) != std::string::npos);

  Expected<NpyArray> d = read_npy(dir.path.string());  // a directory opens but cannot be read
  REQUIRE_FALSE(d.has_value());
  CHECK(d.status().code() == ErrorCode::kIo);
}

}  // namespace
}  // namespace inferno
