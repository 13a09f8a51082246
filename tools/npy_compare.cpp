// npy_compare ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]
// Compares two NumPy arrays elementwise with torch.testing's rule |a - e| <= atol + rtol * |e|
// (defaults: fp32's 1.3e-6 and 1e-5). Prints the largest differences; exit 0 when close, 1 when
// not, 3 when the files cannot be compared.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/tensor_io.h"

int main(int argc, char** argv) {
  CLI::App app{"compare two .npy files within a tolerance", "npy_compare"};
  std::string actual_path, expected_path;
  double rtol = 1.3e-6, atol = 1e-5;
  app.add_option("actual", actual_path)->required();
  app.add_option("expected", expected_path)->required();
  app.add_option("--rtol", rtol, "relative tolerance");
  app.add_option("--atol", atol, "absolute tolerance");
  CLI11_PARSE(app, argc, argv);

  auto actual = inferno::cli::read_tensor(actual_path);
  auto expected = inferno::cli::read_tensor(expected_path);
  for (const auto* t : {&actual, &expected}) {
    if (!t->has_value()) {
      std::fprintf(stderr, "npy_compare: error: %s\n", t->status().to_string().c_str());
      return 3;
    }
  }
  if (actual->type.shape != expected->type.shape) {
    std::fprintf(stderr, "npy_compare: shapes differ: %s vs %s\n", actual->type.to_string().c_str(),
                 expected->type.to_string().c_str());
    return 1;
  }
  double max_abs = 0, max_rel = 0;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < actual->numel(); ++i) {
    const double a = actual->get(i), e = expected->get(i), diff = std::fabs(a - e);
    max_abs = std::fmax(max_abs, diff);
    if (e != 0) max_rel = std::fmax(max_rel, diff / std::fabs(e));
    if (!(diff <= atol + rtol * std::fabs(e))) ++mismatches;
  }
  std::printf("%s: %lld elements, max abs diff %.3g, max rel diff %.3g (rtol %g, atol %g): %s\n",
              actual->type.to_string().c_str(), static_cast<long long>(actual->numel()), max_abs,
              max_rel, rtol, atol, mismatches == 0 ? "match" : "MISMATCH");
  return mismatches == 0 ? 0 : 1;
}
