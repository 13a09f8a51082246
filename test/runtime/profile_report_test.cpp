// inferno-run's profile report (runtime/tools/profile_report.h) on synthetic timings: the table's
// order, shares, rates and classes, the hints, and the trace and roofline files, parsed back
// (nlohmann::json, and Python's XML parser for the SVG).
#include "profile_report.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/catch.h"
#include "support/subprocess.h"

namespace inferno {
namespace {

using run::ProfileStep;

ProfileStep step(const std::string& node, const std::string& op, const std::string& dtype,
                 const std::string& kernel, double flops, double bytes, double start_us,
                 double us) {
  ProfileStep s;
  s.node = node;
  s.op = op;
  s.location = "model.py:" + std::to_string(node.size());
  s.dtype = dtype;
  s.kernel = kernel;
  s.flops = flops;
  s.bytes = bytes;
  s.start_s = start_us * 1e-6;
  s.seconds = us * 1e-6;
  return s;
}

// A device with round roofs: 100 TFLOP/s FMA, 400 tensor, 1 TB/s (ridge points 100 and 400).
run::ProfileInput input() {
  run::ProfileInput in;
  in.peaks = {"Test GPU", 100e12, 400e12, 1e12};
  // gemm: 2e9 FLOPs, 4e6 bytes (intensity 500) in 100 us: 20 TFLOP/s, 20% of the FMA roof.
  in.steps.push_back(step("%mm", "gemm", "f32", "cublasLt (no tensor cores)", 2e9, 4e6, 0, 100));
  // add: 1e6 FLOPs, 12e6 bytes in 50 us: 240 GB/s, 24% of the bandwidth, memory-bound.
  in.steps.push_back(step("%add", "add", "f32", "add_f32_1000", 1e6, 12e6, 100, 50));
  // a tiny norm: 2 us.
  in.steps.push_back(step("%ln", "layer_norm", "f32", "layer_norm<float>", 1e4, 1e4, 150, 2));
  in.steps.push_back(step("%sm", "softmax", "f32", "softmax<float>", 5e4, 8e4, 152, 48));
  in.end_to_end_s = 230e-6;
  in.memory = {100.0 * 1024 * 1024, 8.0 * 1024 * 1024, 1.0 * 1024 * 1024, 0};
  return in;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the profile rows are sorted by time with rates, shares and classes", "[profile]") {
  const run::ProfileInput in = input();
  const std::vector<run::ProfileRow> rows = run::profile_rows(in);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].step->node == "%mm");
  CHECK(rows[1].step->node == "%add");
  CHECK(rows[2].step->node == "%sm");  // 48 us, before the 2 us norm
  CHECK(rows[3].step->node == "%ln");
  CHECK(rows[0].share == Approx(0.5));
  CHECK(rows[0].flops_per_s == Approx(20e12));
  CHECK(rows[0].bound == run::Bound::kCompute);
  CHECK(rows[0].peak_fraction == Approx(0.2));
  CHECK(rows[1].bytes_per_s == Approx(240e9));
  CHECK(rows[1].bound == run::Bound::kMemory);
  CHECK(rows[1].peak_fraction == Approx(0.24));
  CHECK(rows[3].bound == run::Bound::kLatency);
  // A kernel on tensor cores runs against the tensor roof.
  run::ProfileInput tensor = input();
  tensor.steps[0].kernel = "cublasLt (tensor cores)";
  CHECK(run::profile_rows(tensor)[0].peak_fraction == Approx(0.05));
}

TEST_CASE("the profile table sums kernel time and names the launch overhead", "[profile]") {
  const std::string table = run::profile_table(input());
  CHECK(has(table, "cublasLt (no tensor cores)"));
  CHECK(has(table, "%mm (gemm)"));
  CHECK(has(table, " 50.0%"));
  CHECK(has(table, "kernels 200.0 us, end to end 230.0 us, launch overhead 30.0 us"));
  CHECK(has(table, "peak device memory 108.0 MiB: weights 100.0 MiB, arena 8.0 MiB"));
  CHECK(table.find("%mm (gemm)") < table.find("%add (add)"));
}

TEST_CASE("the hints come from the measurements", "[profile]") {
  const std::vector<std::string> hints = run::profile_hints(input());
  auto any = [&](const std::string& part) {
    for (const std::string& h : hints) {
      if (has(h, part)) return true;
    }
    return false;
  };
  CHECK(any("%mm (gemm) at model.py:3 takes 50% in f32 without tensor cores"));
  CHECK(any("%add (add) at model.py:4 is memory-bound at 24%"));
  CHECK(any("attention, it was not recognized"));
  CHECK_FALSE(any("f32 island"));  // an f32 model has none
  CHECK_FALSE(any("launch-bound"));
  // A 16-bit model with an f32 softmax, many tiny kernels and attention recognized.
  run::ProfileInput half = input();
  for (ProfileStep& s : half.steps) s.dtype = s.op == "softmax" ? "f32" : "f16";
  half.steps.push_back(step("%attn", "attention", "f16", "attention<__half, 64>", 1, 1, 200, 1));
  for (int i = 0; i < 30; ++i) half.steps.push_back(step("%t", "neg", "f16", "neg", 1, 1, 0, 1));
  const std::vector<std::string> more = run::profile_hints(half);
  bool island = false, launch_bound = false, unrecognized = false;
  for (const std::string& h : more) {
    island |= has(h, "%sm (softmax) at model.py:3 runs in f32 in a 16-bit model");
    launch_bound |= has(h, "32 of 35 steps take under 5.0 us");
    unrecognized |= has(h, "not recognized");
  }
  CHECK(island);
  CHECK(launch_bound);
  CHECK_FALSE(unrecognized);
  CHECK_FALSE(any("add up to"));  // 200 us of steps in a 230 us run
}

TEST_CASE("steps that add up to more than the whole run are said to carry event overhead",
          "[profile]") {
  run::ProfileInput in = input();
  in.end_to_end_s = 160e-6;  // the four steps sum to 200 us
  bool said = false;
  for (const std::string& h : run::profile_hints(in)) {
    said |= has(h, "the steps add up to 200.0 us, 25% more than a whole run (160.0 us)") &&
            has(h, "about 10.0 us per step");
  }
  CHECK(said);
  // CUPTI's records are the GPU's own kernel times: no events to blame.
  in.timing = run::StepTiming::kCupti;
  for (const std::string& h : run::profile_hints(in)) CHECK_FALSE(has(h, "the steps add up to"));
}

TEST_CASE("the profile table says how the steps were timed", "[profile]") {
  run::ProfileInput in = input();
  CHECK(has(run::profile_table(in), "step times: CUDA events around each step\n"));
  in.timing = run::StepTiming::kCupti;
  CHECK(has(run::profile_table(in), "step times: CUPTI activity records"));
}

TEST_CASE("the Chrome trace is JSON with one complete event per step", "[profile]") {
  run::ProfileInput in = input();
  in.steps[1].node = "%a\"d\\d\n";  // escaped, not breaking the file
  const nlohmann::json trace = nlohmann::json::parse(run::chrome_trace_json(in));
  const nlohmann::json& events = trace.at("traceEvents");
  REQUIRE(events.size() == 5);  // the process name, then the steps
  CHECK(events[0].at("ph") == "M");
  const nlohmann::json& mm = events[1];
  CHECK(mm.at("ph") == "X");
  CHECK(mm.at("name") == "%mm gemm");
  CHECK(mm.at("ts").get<double>() == Approx(0));
  CHECK(mm.at("dur").get<double>() == Approx(100));
  CHECK(mm.at("args").at("kernel") == "cublasLt (no tensor cores)");
  CHECK(mm.at("args").at("location") == "model.py:3");
  CHECK(mm.at("args").at("flops").get<double>() == Approx(2e9));
  CHECK(events[2].at("name") == "%a\"d\\d\n add");
  CHECK(events[2].at("ts").get<double>() == Approx(100));
}

TEST_CASE("the roofline is an SVG document with a dot per step", "[profile]") {
  run::ProfileInput in = input();
  in.steps[0].node = "%<m&m>";
  const std::string svg = run::roofline_svg(in);
  size_t dots = 0;
  for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1))
    ++dots;
  CHECK(dots == 4);
  CHECK(has(svg, "%&lt;m&amp;m&gt;"));
  CHECK(has(svg, "tensor cores 400.0 TFLOP/s"));
  // Python's XML parser reads it, and the root is an svg element.
  const std::string path = "profile_report_test_roofline.svg";
  std::ofstream(path) << svg;
  const test::ProcessResult parsed = test::run_process(
      {"/usr/bin/python3", "-c",
       "import sys, xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().tag)", path});
  std::remove(path.c_str());
  INFO(parsed.err);
  CHECK(parsed.exit_code == 0);
  CHECK(parsed.out == "{http://www.w3.org/2000/svg}svg\n");
}

// tools/bench/profile_table.py parses what inferno-run prints and writes: its test reads this
// code's output, so a change of format here fails there.
TEST_CASE("the Python profile parser reads the real report and trace", "[profile]") {
  run::ProfileInput in = input();
  in.steps[2].location = "";                         // an empty line column
  in.steps[3].kernel = "softmax<float> (\xc3\xa9)";  // padded by bytes, not characters
  const std::string table = "profile_report_test_table.txt",
                    trace = "profile_report_test_trace.json";
  std::ofstream(table) << "output 0 'y': f32 [4]\n" << run::profile_report_text(in) << "output 0\n";
  std::ofstream(trace) << run::chrome_trace_json(in);
  const test::ProcessResult parsed = test::run_process(
      {"/usr/bin/python3", INFERNO_SOURCE_DIR "/tools/bench/profile_table_test.py", table, trace});
  std::remove(table.c_str());
  std::remove(trace.c_str());
  INFO(parsed.out + parsed.err);
  CHECK(parsed.exit_code == 0);
}

TEST_CASE("device peaks come from SMs, clocks and the arch", "[profile]") {
  // 132 SMs at 1.98 GHz, sm_90: 128 FP32 lanes (2 FLOPs each) and 4096 tensor FLOPs per clock.
  const run::DevicePeaks h100 = run::device_peaks("H100", 9, 0, 132, 1980000, 3e12);
  CHECK(h100.fma_flops_per_s == Approx(132 * 1.98e9 * 256));
  CHECK(h100.tensor_flops_per_s == Approx(132 * 1.98e9 * 4096));
  CHECK(h100.bytes_per_s == 3e12);
  const run::DevicePeaks unknown = run::device_peaks("future", 12, 0, 10, 1e6, 1e12);
  CHECK(unknown.tensor_flops_per_s == 0);
  CHECK(unknown.fma_flops_per_s == Approx(10 * 1e9 * 256));
}

}  // namespace inferno
