#include "runtime_test_support.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace inferno::test {

std::string model_path(const std::string& name) {
  return std::string(INFERNO_TEST_MODEL_DIR) + "/test_model_" + name + ".so";
}

const inferno_model& good_model_abi() {
  // Kept open for the whole test run: the struct lives in the library.
  static const inferno_model* model = [] {
    void* handle = dlopen(model_path("good").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error(dlerror());
    auto entry = reinterpret_cast<inferno_model_entry_fn>(dlsym(handle, INFERNO_MODEL_ENTRY_NAME));
    if (entry == nullptr) throw std::runtime_error("no entry point in the good test model");
    return entry();
  }();
  return *model;
}

std::vector<float> good_weights() {
  const inferno_model& model = good_model_abi();
  std::vector<float> weights(model.weights_bytes / sizeof(float));
  std::memcpy(weights.data(), model.weights, model.weights_bytes);
  return weights;
}

std::vector<float> reference_output(const std::vector<float>& x) {
  const std::vector<float> weights = good_weights();
  const size_t n = x.size();
  std::vector<float> y(n);
  for (size_t i = 0; i < n; ++i) {
    const float t = x[i] * weights[i];  // two roundings, as the model's two kernels
    y[i] = t + weights[n + i];
  }
  return y;
}

std::vector<float> sample_input(int seed) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = 0.125f * static_cast<float>((i * 7 + seed * 13) % 41 - 20);
  return x;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "inferno_rt_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_file(const std::filesystem::path& path, const void* bytes, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace inferno::test
