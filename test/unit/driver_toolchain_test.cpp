// Finding nvcc (--nvcc, $CUDACXX, $CUDA_HOME, /usr/local/cuda, $PATH), checking its version and
// archs, finding the kernels, and the source model hash. Fake nvcc scripts stand in for the
// toolkit (driver_test_helpers.h).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "driver/source_hash.h"
#include "driver/toolchain.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/sha256.h"

namespace inferno::driver {
namespace {

using test::contains;
using test::ScratchDir;
using test::write_fake_nvcc;

/// Fake nvccs in every place the search looks, each one distinguishable by its path.
struct NvccPlaces {
  ScratchDir dir{"nvcc_places"};
  std::string explicit_nvcc = write_fake_nvcc(dir.path() / "explicit" / "nvcc");
  std::string cudacxx = write_fake_nvcc(dir.path() / "cudacxx" / "nvcc");
  std::string cuda_home_nvcc = write_fake_nvcc(dir.path() / "cuda_home" / "bin" / "nvcc");
  std::string default_nvcc = write_fake_nvcc(dir.path() / "default" / "bin" / "nvcc");
  std::string path_nvcc = write_fake_nvcc(dir.path() / "path2" / "nvcc");

  NvccSearch search() const {
    NvccSearch s;
    s.explicit_path = explicit_nvcc;
    s.cudacxx = cudacxx;
    s.cuda_home = dir / "cuda_home";
    s.default_path = default_nvcc;
    s.path = dir / "path1" + ":" + (dir / "path2") + ":/nonexistent";
    return s;
  }
};

TEST_CASE("nvcc is found in order: --nvcc, CUDACXX, CUDA_HOME, the default, PATH") {
  NvccPlaces places;
  NvccSearch search = places.search();
  CHECK(*find_nvcc(search) == places.explicit_nvcc);
  search.explicit_path.clear();
  CHECK(*find_nvcc(search) == places.cudacxx);
  search.cudacxx.clear();
  CHECK(*find_nvcc(search) == places.cuda_home_nvcc);
  search.cuda_home = places.dir / "no_such_cuda_home";  // set but empty: the search goes on
  CHECK(*find_nvcc(search) == places.default_nvcc);
  search.default_path = (places.dir.path() / "missing" / "nvcc").string();
  CHECK(*find_nvcc(search) == places.path_nvcc);

  search.path = places.dir / "path1";
  auto none = find_nvcc(search);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.status().code() == ErrorCode::kToolchain);
  const std::string& message = none.status().message();
  INFO(message);
  CHECK(contains(message, "cannot find nvcc"));
  CHECK(contains(message, places.dir / "no_such_cuda_home" + "/bin/nvcc"));
  CHECK(contains(message, (places.dir.path() / "missing" / "nvcc").string()));
  CHECK(contains(message, places.dir / "path1"));
  CHECK(contains(message, "--nvcc"));
}

TEST_CASE("an nvcc named explicitly must work: no fallback") {
  NvccPlaces places;
  NvccSearch search = places.search();
  search.explicit_path = (places.dir.path() / "nowhere" / "nvcc").string();
  auto missing = find_nvcc(search);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.status().code() == ErrorCode::kToolchain);
  CHECK(contains(missing.status().message(), "--nvcc '" + search.explicit_path + "'"));
  CHECK(contains(missing.status().message(), "No such file"));

  ::chmod(places.cudacxx.c_str(), 0644);
  search.explicit_path.clear();
  auto not_executable = find_nvcc(search);
  REQUIRE_FALSE(not_executable.has_value());
  CHECK(contains(not_executable.status().message(), "CUDACXX '" + places.cudacxx + "'"));
  CHECK(contains(not_executable.status().message(), "not executable"));

  search.cudacxx = places.dir / "explicit";  // a directory
  auto directory = find_nvcc(search);
  REQUIRE_FALSE(directory.has_value());
  CHECK(contains(directory.status().message(), "not a regular file"));
}

TEST_CASE("a relative nvcc path becomes absolute") {
  NvccPlaces places;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(places.dir.path());
  NvccSearch search;
  search.explicit_path = "explicit/nvcc";
  auto found = find_nvcc(search);
  std::filesystem::current_path(cwd);
  REQUIRE(found.has_value());
  CHECK(*found == places.explicit_nvcc);
}

TEST_CASE("nvcc --version output gives the CUDA version") {
  auto v13 = parse_nvcc_version(
      "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
      "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\nCuda compilation tools, release 13.0, V13.0.88\n"
      "Build cuda_13.0.r13.0/compiler.36424714_0\n");
  REQUIRE(v13.has_value());
  CHECK(v13->major == 13);
  CHECK(v13->minor == 0);
  CHECK(v13->to_string() == "13.0");
  auto v12 = parse_nvcc_version("Cuda compilation tools, release 12.4, V12.4.131");
  REQUIRE(v12.has_value());
  CHECK(v12->to_string() == "12.4");
  CHECK(CudaVersion{11, 8} < kMinimumCudaVersion);
  CHECK(CudaVersion{12, 0} >= kMinimumCudaVersion);
  CHECK(CudaVersion{12, 10} > CudaVersion{12, 9});
  for (const char* bad : {"", "hello", "release", "release 13", "release x.y", "release 13."}) {
    INFO(bad);
    CHECK_FALSE(parse_nvcc_version(bad).has_value());
  }
}

TEST_CASE("nvcc --list-gpu-code output gives the archs it builds for") {
  CHECK(parse_gpu_code_list("sm_75\nsm_80\nsm_90\nsm_100\nsm_90\n") ==
        std::vector<int>{75, 80, 90, 100});
  CHECK(parse_gpu_code_list("").empty());
}

TEST_CASE("the toolchain check runs nvcc and requires CUDA 12.0 or newer") {
  ScratchDir dir("toolchain_check");
  NvccSearch search;
  search.explicit_path = write_fake_nvcc(dir.path() / "v13" / "nvcc", "13.0");
  auto v13 = check_toolchain(search);
  REQUIRE(v13.has_value());
  CHECK(v13->nvcc == search.explicit_path);
  CHECK(v13->version.to_string() == "13.0");
  CHECK(v13->supported_ccs == std::vector<int>{75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121});

  search.explicit_path = write_fake_nvcc(dir.path() / "v12" / "nvcc", "12.4");
  auto v12 = check_toolchain(search);
  REQUIRE(v12.has_value());
  CHECK(v12->version.to_string() == "12.4");

  search.explicit_path = write_fake_nvcc(dir.path() / "v11" / "nvcc", "11.8");
  auto v11 = check_toolchain(search);
  REQUIRE_FALSE(v11.has_value());
  CHECK(v11.status().code() == ErrorCode::kToolchain);
  CHECK(contains(v11.status().message(), "CUDA 11.8"));
  CHECK(contains(v11.status().message(), "12.0 or newer"));

  search.explicit_path =
      test::write_script(dir.path() / "garbage" / "nvcc", "echo 'I am not nvcc'\n");
  auto garbage = check_toolchain(search);
  REQUIRE_FALSE(garbage.has_value());
  CHECK(garbage.status().code() == ErrorCode::kToolchain);
  CHECK(contains(garbage.status().message(), "I am not nvcc"));

  search.explicit_path = test::write_script(dir.path() / "broken" / "nvcc",
                                            "echo 'libfoo.so: not found' >&2; exit 127\n");
  auto broken = check_toolchain(search);
  REQUIRE_FALSE(broken.has_value());
  CHECK(contains(broken.status().message(), "exit status 127"));
  CHECK(contains(broken.status().message(), "libfoo.so: not found"));

  // Not a program the kernel can run (no #! line, not ELF).
  test::write_text(dir.path() / "noexec" / "nvcc", "just text\n");
  ::chmod((dir.path() / "noexec" / "nvcc").c_str(), 0755);
  search.explicit_path = dir / "noexec/nvcc";
  auto noexec = check_toolchain(search);
  REQUIRE_FALSE(noexec.has_value());
  CHECK(noexec.status().code() == ErrorCode::kToolchain);
  CHECK(contains(noexec.status().message(), "cannot run"));
}

TEST_CASE("archs the nvcc cannot build for are toolchain errors") {
  Toolchain toolchain;
  toolchain.nvcc = "/opt/cuda/bin/nvcc";
  toolchain.version = {13, 0};
  toolchain.supported_ccs = {75, 80, 90, 100};
  CHECK(check_archs_supported(toolchain, {{90, true}, {80, false}}).is_ok());
  Status old = check_archs_supported(toolchain, {{70, false}, {90, false}});
  CHECK(old.code() == ErrorCode::kToolchain);
  CHECK(contains(old.message(), "unsupported arch 'sm_70'"));
  CHECK(contains(old.message(), "nvcc 13.0"));
  toolchain.supported_ccs.clear();  // nvcc did not say: nvcc itself will refuse
  CHECK(check_archs_supported(toolchain, {{70, false}}).is_ok());
}

TEST_CASE("the real nvcc passes the toolchain check when installed") {
  if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) {
    WARN("SKIPPED: no /usr/local/cuda/bin/nvcc");
    return;
  }
  NvccSearch search;
  search.explicit_path = "/usr/local/cuda/bin/nvcc";
  auto toolchain = check_toolchain(search);
  INFO((toolchain ? "" : toolchain.status().message()));
  REQUIRE(toolchain.has_value());
  CHECK(toolchain->version >= kMinimumCudaVersion);
  CHECK(!toolchain->supported_ccs.empty());
}

TEST_CASE("kernels and the model ABI header are found, INFERNO_KERNELS_DIR overriding") {
  const std::string source_include = std::string(INFERNO_SOURCE_DIR) + "/include";
  if (std::filesystem::is_directory(std::string(INFERNO_SOURCE_DIR) + "/kernels")) {
    auto dirs = find_source_dirs();
    INFO((dirs ? "" : dirs.status().message()));
    REQUIRE(dirs.has_value());
    CHECK(dirs->kernels_root == INFERNO_SOURCE_DIR);
    CHECK(dirs->include_dir == source_include);
  }

  ScratchDir dir("kernels_dir");
  test::write_text(dir.path() / "kernels" / "x.cuh", "// x\n");
  ::setenv("INFERNO_KERNELS_DIR", dir.path().c_str(), 1);
  auto overridden = find_source_dirs();
  ::setenv("INFERNO_KERNELS_DIR", (dir / "nothing_here").c_str(), 1);
  auto bad = find_source_dirs();
  ::unsetenv("INFERNO_KERNELS_DIR");
  REQUIRE(overridden.has_value());
  CHECK(overridden->kernels_root == dir.path().string());
  CHECK(overridden->include_dir == source_include);  // no include/ there: the source tree's
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().code() == ErrorCode::kToolchain);
  CHECK(contains(bad.status().message(), "INFERNO_KERNELS_DIR"));
}

TEST_CASE("the source model hash is the SHA-256 of the file in hex") {
  ScratchDir dir("hash");
  test::write_text(dir.path() / "empty", "");
  test::write_text(dir.path() / "abc", "abc");
  CHECK(*hash_file_hex(dir / "empty") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(*hash_file_hex(dir / "abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Longer than one read chunk: the hash carries across chunks.
  std::string big(3 << 20, 'x');
  big[(1 << 20) + 7] = 'y';
  test::write_text(dir.path() / "big", big);
  CHECK(*hash_file_hex(dir / "big") == sha256_hex(big));
  auto missing = hash_file_hex(dir / "missing");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.status().code() == ErrorCode::kIo);
}

}  // namespace
}  // namespace inferno::driver
