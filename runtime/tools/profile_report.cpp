#include "profile_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace inferno::run {
namespace {

// Per SM and clock: FP32 FMA lanes, and dense f16 tensor-core FLOPs (f32 accumulation) by
// compute capability, from NVIDIA's architecture whitepapers (Volta to Hopper).
struct ArchRates {
  int major, minor;
  int fp32_lanes;
  int tensor_flops;
};
constexpr ArchRates kArchRates[] = {
    {7, 0, 64, 1024},  {7, 2, 64, 1024},  {7, 5, 64, 1024},  {8, 0, 64, 2048},
    {8, 6, 128, 1024}, {8, 7, 128, 1024}, {8, 9, 128, 1024}, {9, 0, 128, 4096},
};

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string us(double seconds) { return format("%.1f us", seconds * 1e6); }

std::string mib(double bytes) { return format("%.1f MiB", bytes / (1024.0 * 1024.0)); }

// The compiler's kernel choice says "(... tensor cores)" or "(no tensor cores)"
// (codegen/profile_plan.h).
bool uses_tensor_cores(const ProfileStep& step) {
  return step.kernel.find("tensor cores") != std::string::npos &&
         step.kernel.find("no tensor cores") == std::string::npos;
}

bool is_16_bit(const std::string& dtype) { return dtype == "f16" || dtype == "bf16"; }

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "0";
  return format("%.17g", value);
}

std::string xml_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 admits no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

// "%add_2 (gemm) at file.py:12": what the trace and the hints call a step.
std::string step_title(const ProfileStep& step) {
  std::string title = step.node + " (" + step.op + ")";
  if (!step.location.empty()) title += " at " + step.location;
  return title;
}

double total_step_seconds(const ProfileInput& input) {
  double total = 0;
  for (const ProfileStep& step : input.steps) total += step.seconds;
  return total;
}

}  // namespace

const char* bound_name(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kMemory:
      return "memory";
    case Bound::kLatency:
      return "latency";
  }
  return "?";
}

DevicePeaks device_peaks(const std::string& name, int cc_major, int cc_minor, int sm_count,
                         double clock_khz, double copy_bytes_per_s) {
  DevicePeaks peaks;
  peaks.name = name;
  peaks.bytes_per_s = copy_bytes_per_s;
  const double clocks = static_cast<double>(sm_count) * clock_khz * 1e3;
  const ArchRates* rates = nullptr;
  for (const ArchRates& r : kArchRates) {
    if (r.major == cc_major && r.minor == cc_minor) rates = &r;
  }
  // An unknown arch: FP32 at 128 lanes (every arch since sm_86), no tensor roof claimed.
  peaks.fma_flops_per_s = clocks * 2.0 * (rates != nullptr ? rates->fp32_lanes : 128);
  peaks.tensor_flops_per_s = rates != nullptr ? clocks * rates->tensor_flops : 0.0;
  return peaks;
}

double compute_roof(const ProfileStep& step, const DevicePeaks& peaks) {
  return uses_tensor_cores(step) && peaks.tensor_flops_per_s > 0 ? peaks.tensor_flops_per_s
                                                                 : peaks.fma_flops_per_s;
}

std::vector<ProfileRow> profile_rows(const ProfileInput& input) {
  const double total = total_step_seconds(input);
  std::vector<ProfileRow> rows;
  for (const ProfileStep& step : input.steps) {
    ProfileRow row;
    row.step = &step;
    row.share = total > 0 ? step.seconds / total : 0.0;
    row.flops_per_s = step.seconds > 0 ? step.flops / step.seconds : 0.0;
    row.bytes_per_s = step.seconds > 0 ? step.bytes / step.seconds : 0.0;
    const double roof = compute_roof(step, input.peaks);
    const double compute_fraction = roof > 0 ? row.flops_per_s / roof : 0.0;
    const double memory_fraction =
        input.peaks.bytes_per_s > 0 ? row.bytes_per_s / input.peaks.bytes_per_s : 0.0;
    const double ridge = input.peaks.bytes_per_s > 0 ? roof / input.peaks.bytes_per_s : 0.0;
    const double intensity = step.bytes > 0 ? step.flops / step.bytes : 0.0;
    if (step.seconds < kLatencyBoundSeconds && compute_fraction < 0.25 && memory_fraction < 0.25) {
      row.bound = Bound::kLatency;
      row.peak_fraction = std::max(compute_fraction, memory_fraction);
    } else if (intensity > ridge) {
      row.bound = Bound::kCompute;
      row.peak_fraction = compute_fraction;
    } else {
      row.bound = Bound::kMemory;
      row.peak_fraction = memory_fraction;
    }
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
    return a.step->seconds > b.step->seconds;
  });
  return rows;
}

const char* step_timing_name(StepTiming timing) {
  return timing == StepTiming::kCupti ? "CUPTI activity records (each step's kernels, copies and "
                                        "memsets, as the GPU ran them)"
                                      : "CUDA events around each step";
}

std::string profile_table(const ProfileInput& input) {
  const std::vector<ProfileRow> rows = profile_rows(input);
  size_t name_width = 6, where_width = 6, kernel_width = 6;
  for (const ProfileRow& row : rows) {
    name_width = std::max(name_width, row.step->node.size() + row.step->op.size() + 3);
    where_width = std::max(where_width, row.step->location.size());
    kernel_width = std::max(kernel_width, row.step->kernel.size());
  }
  std::string text = pad("kernel", kernel_width) + "  " + pad("source", name_width) + "  " +
                     pad("line", where_width) +
                     "      time   share  TFLOP/s     GB/s  of peak  bound\n";
  for (const ProfileRow& row : rows) {
    const ProfileStep& s = *row.step;
    text += pad(s.kernel, kernel_width) + "  " + pad(s.node + " (" + s.op + ")", name_width) +
            "  " + pad(s.location, where_width) + "  " + format("%8.1f", s.seconds * 1e6) + "us  " +
            format("%5.1f%%", row.share * 100) + "  " + format("%7.2f", row.flops_per_s / 1e12) +
            "  " + format("%7.1f", row.bytes_per_s / 1e9) + "  " +
            format("%6.1f%%", row.peak_fraction * 100) + "  " + bound_name(row.bound) + "\n";
  }
  const double kernels = total_step_seconds(input);
  size_t launches = 0;
  for (const ProfileStep& step : input.steps) launches += static_cast<size_t>(step.launches);
  text += "\n" + std::to_string(input.steps.size()) + " steps, " + std::to_string(launches) +
          " launches on " + input.peaks.name + " (peak " +
          format("%.1f", input.peaks.fma_flops_per_s / 1e12) + " TFLOP/s FMA, " +
          format("%.1f", input.peaks.tensor_flops_per_s / 1e12) + " tensor, " +
          format("%.0f", input.peaks.bytes_per_s / 1e9) + " GB/s copy)\n";
  text += "kernels " + us(kernels) + ", end to end " + us(input.end_to_end_s) +
          ", launch overhead " + us(std::max(0.0, input.end_to_end_s - kernels)) + "\n";
  const MemoryUse& m = input.memory;
  text += "peak device memory " + mib(m.weights + m.arena + m.state) + ": weights " +
          mib(m.weights) + ", arena " + mib(m.arena) + " (workspace " + mib(m.workspace) +
          "), state " + mib(m.state) + "\n";
  text += "step times: " + std::string(step_timing_name(input.timing)) + "\n";
  return text;
}

std::vector<std::string> profile_hints(const ProfileInput& input) {
  constexpr double kNotable = 0.05;  // a hint names steps with at least this share of the time
  std::vector<std::string> hints;
  const std::vector<ProfileRow> rows = profile_rows(input);
  size_t sixteen_bit = 0, tiny = 0;
  bool has_attention = false, has_softmax = false;
  for (const ProfileStep& step : input.steps) {
    sixteen_bit += is_16_bit(step.dtype) ? 1 : 0;
    tiny += step.seconds < kLatencyBoundSeconds / 2 ? 1 : 0;
    has_attention |= step.op == "attention";
    has_softmax |= step.op == "softmax";
  }
  const bool mostly_16_bit = sixteen_bit * 2 > input.steps.size();
  for (const ProfileRow& row : rows) {
    const ProfileStep& s = *row.step;
    if (row.share < kNotable) continue;
    if ((s.op == "gemm" || s.op == "conv2d") && s.dtype == "f32" && !uses_tensor_cores(s)) {
      hints.push_back(step_title(s) + " takes " + format("%.0f%%", row.share * 100) +
                      " in f32 without tensor cores: --precision tf32 (or fp16 / bf16) would "
                      "run it on tensor cores");
    }
    if (row.bound == Bound::kMemory && row.peak_fraction < 0.3) {
      hints.push_back(step_title(s) + " is memory-bound at " +
                      format("%.0f%%", row.peak_fraction * 100) +
                      " of the measured copy bandwidth: its access pattern wastes bandwidth");
    }
    if (mostly_16_bit && s.dtype == "f32" && s.op != "copy") {
      hints.push_back(step_title(s) + " runs in f32 in a 16-bit model (" +
                      format("%.0f%%", row.share * 100) + " of the time): an f32 island");
    }
  }
  if (has_softmax && !has_attention) {
    hints.push_back(
        "softmax runs as its own kernel and no attention kernel does: if this is attention, it "
        "was not recognized, so its scores go through memory (docs/optimizer.md, "
        "recognize-attention)");
  }
  // Without CUPTI each step is timed by a pair of CUDA events, and an event makes the GPU finish
  // the work before it and write a timestamp: measured on an H100, about 3 us per step, so at
  // batch 1 a model's steps summed 17-54% more than a graph replay of the whole run (and within
  // 10% at batch 64, where steps are long). Said, with the measured excess, whenever it shows.
  const double kernels = total_step_seconds(input);
  constexpr double kNotableExcess = 1.05;
  if (input.timing == StepTiming::kCudaEvents && input.end_to_end_s > 0 &&
      kernels > input.end_to_end_s * kNotableExcess) {
    const double excess = kernels - input.end_to_end_s;
    hints.push_back("the steps add up to " + us(kernels) + ", " +
                    format("%.0f%%", (kernels / input.end_to_end_s - 1) * 100) +
                    " more than a whole run (" + us(input.end_to_end_s) +
                    "): the CUDA events around each step cost about " +
                    us(excess / static_cast<double>(input.steps.size())) +
                    " per step on the GPU, so short steps read slower (and their rates lower) "
                    "than they run in a graph replay");
  }
  if (input.steps.size() >= 20 && tiny * 2 >= input.steps.size()) {
    hints.push_back(std::to_string(tiny) + " of " + std::to_string(input.steps.size()) +
                    " steps take under " + us(kLatencyBoundSeconds / 2) +
                    ": the run is launch-bound; without --profile inferno-run replays a CUDA "
                    "graph, which hides most of the launch overhead");
  }
  return hints;
}

std::string profile_report_text(const ProfileInput& input) {
  std::string text = profile_table(input);
  for (const std::string& hint : profile_hints(input)) text += "hint: " + hint + "\n";
  return text;
}

std::string chrome_trace_json(const ProfileInput& input) {
  std::string json = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  json += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":" +
          json_string("inferno " + input.peaks.name) + "}}";
  for (const ProfileStep& s : input.steps) {
    json += ",{\"name\":" + json_string(s.node + " " + s.op) +
            ",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":" +
            json_number(s.start_s * 1e6) + ",\"dur\":" + json_number(s.seconds * 1e6) +
            ",\"args\":{\"kernel\":" + json_string(s.kernel) +
            ",\"location\":" + json_string(s.location) + ",\"dtype\":" + json_string(s.dtype) +
            ",\"launches\":" + std::to_string(s.launches) + ",\"flops\":" + json_number(s.flops) +
            ",\"bytes\":" + json_number(s.bytes) + "}}";
  }
  return json + "]}\n";
}

std::string roofline_svg(const ProfileInput& input) {
  constexpr double kWidth = 800, kHeight = 500, kLeft = 70, kBottom = 450, kTop = 20, kRight = 780;
  const DevicePeaks& p = input.peaks;
  const double top_flops = std::max({p.fma_flops_per_s, p.tensor_flops_per_s, 1.0});
  // Decades: intensity 1/16 .. 4096 FLOP/byte; FLOP/s from 1e-6 of the highest roof up to it.
  const double x_min = std::log10(1.0 / 16), x_max = std::log10(4096.0);
  const double y_max = std::log10(top_flops) + 0.2, y_min = y_max - 6.2;
  auto x_at = [&](double intensity) {
    const double lx = std::clamp(std::log10(std::max(intensity, 1e-30)), x_min, x_max);
    return kLeft + (lx - x_min) / (x_max - x_min) * (kRight - kLeft);
  };
  auto y_at = [&](double flops) {
    const double ly = std::clamp(std::log10(std::max(flops, 1e-30)), y_min, y_max);
    return kBottom - (ly - y_min) / (y_max - y_min) * (kBottom - kTop);
  };
  auto num = [](double v) { return format("%.1f", v); };
  std::string svg =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "
      "xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
      num(kWidth) + "\" height=\"" + num(kHeight) +
      "\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n";
  svg += "<title>" + xml_text("roofline: " + p.name) + "</title>\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
         "\" fill=\"white\"/>\n";
  svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(kBottom) + "\" x2=\"" + num(kRight) +
         "\" y2=\"" + num(kBottom) + "\" stroke=\"black\"/>\n<line x1=\"" + num(kLeft) +
         "\" y1=\"" + num(kTop) + "\" x2=\"" + num(kLeft) + "\" y2=\"" + num(kBottom) +
         "\" stroke=\"black\"/>\n";
  svg += "<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num(kHeight - 15) +
         "\" text-anchor=\"middle\">FLOP per byte (log)</text>\n<text x=\"15\" y=\"" +
         num(kTop + 10) + "\">FLOP/s (log)</text>\n";
  // Each roof: the bandwidth slope up to its ridge point, then flat.
  for (const auto& [roof, label] :
       {std::pair{p.fma_flops_per_s, "FMA"}, std::pair{p.tensor_flops_per_s, "tensor cores"}}) {
    if (roof <= 0 || p.bytes_per_s <= 0) continue;
    const double ridge = roof / p.bytes_per_s;
    const double start = std::pow(10.0, x_min);
    svg += "<polyline fill=\"none\" stroke=\"gray\" points=\"" + num(x_at(start)) + "," +
           num(y_at(start * p.bytes_per_s)) + " " + num(x_at(ridge)) + "," + num(y_at(roof)) + " " +
           num(kRight) + "," + num(y_at(roof)) + "\"/>\n";
    svg += "<text x=\"" + num(kRight - 4) + "\" y=\"" + num(y_at(roof) - 4) +
           "\" text-anchor=\"end\" fill=\"gray\">" + xml_text(label) + " " +
           format("%.1f", roof / 1e12) + " TFLOP/s</text>\n";
  }
  for (const ProfileRow& row : profile_rows(input)) {
    const ProfileStep& s = *row.step;
    if (s.bytes <= 0 || s.flops <= 0 || s.seconds <= 0) continue;
    const char* color = row.bound == Bound::kCompute  ? "#c0392b"
                        : row.bound == Bound::kMemory ? "#2471a3"
                                                      : "#7d7d7d";
    svg += "<circle cx=\"" + num(x_at(s.flops / s.bytes)) + "\" cy=\"" +
           num(y_at(row.flops_per_s)) + "\" r=\"4\" fill=\"" + color + "\"><title>" +
           xml_text(step_title(s) + ": " + s.kernel + ", " + us(s.seconds)) + "</title></circle>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace inferno::run
