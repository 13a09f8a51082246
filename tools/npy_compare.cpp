// npy_compare ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A] [--rel-l2 E]
// Compares two NumPy arrays elementwise with torch.testing's rule |a - e| <= atol + rtol * |e|
// (defaults: fp32's 1.3e-6 and 1e-5), or, with --rel-l2, as a whole: ||a - e||_2 <= E ||e||_2
// (the zoo's criterion: a deep network's rounding differences add up element by element, while
// the relative L2 error stays a property of the whole result). NaN anywhere fails either rule.
// Prints the largest differences and the relative L2 error; exit 0 when close, 1 when not, 3
// when the files cannot be compared.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/tensor_io.h"

int main(int argc, char** argv) {
  CLI::App app{"compare two .npy files within a tolerance", "npy_compare"};
  std::string actual_path, expected_path;
  double rtol = 1.3e-6, atol = 1e-5, rel_l2_limit = -1;
  app.add_option("actual", actual_path)->required();
  app.add_option("expected", expected_path)->required();
  app.add_option("--rtol", rtol, "relative tolerance");
  app.add_option("--atol", atol, "absolute tolerance");
  app.add_option("--rel-l2", rel_l2_limit,
                 "compare ||actual - expected|| / ||expected|| (L2 norms) against this instead");
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
  double max_abs = 0, max_rel = 0, diff_squares = 0, expected_squares = 0;
  int64_t mismatches = 0;
  bool nan = false;
  for (int64_t i = 0; i < actual->numel(); ++i) {
    const double a = actual->get(i), e = expected->get(i), diff = std::fabs(a - e);
    nan = nan || std::isnan(a) || std::isnan(e);
    max_abs = std::fmax(max_abs, diff);
    if (e != 0) max_rel = std::fmax(max_rel, diff / std::fabs(e));
    if (!(diff <= atol + rtol * std::fabs(e))) ++mismatches;
    diff_squares += diff * diff;
    expected_squares += e * e;
  }
  // 0 / 0 (both all zero) is a match; anything / 0 is not.
  const double rel_l2 = diff_squares == 0 ? 0 : std::sqrt(diff_squares / expected_squares);
  const bool close = rel_l2_limit >= 0 ? !nan && rel_l2 <= rel_l2_limit : mismatches == 0;
  char rule[96];
  if (rel_l2_limit >= 0)
    std::snprintf(rule, sizeof rule, "rel L2 limit %g", rel_l2_limit);
  else
    std::snprintf(rule, sizeof rule, "rtol %g, atol %g", rtol, atol);
  std::printf("%s: %lld elements, max abs diff %.3g, max rel diff %.3g, rel L2 %.3g (%s): %s\n",
              actual->type.to_string().c_str(), static_cast<long long>(actual->numel()), max_abs,
              max_rel, rel_l2, rule, close ? "match" : "MISMATCH");
  return close ? 0 : 1;
}
