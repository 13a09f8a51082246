#include "driver/build.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "driver/build_cache.h"
#include "driver/nvcc_plan.h"
#include "driver/process.h"
#include "driver/temp_file.h"
#include "support/version.h"

namespace inferno::driver {
namespace {

namespace fs = std::filesystem;

/// Lines of nvcc's output quoted in the error when it fails.
constexpr int kQuotedLogLines = 40;

// ---- interruption ------------------------------------------------------------------------------

volatile sig_atomic_t g_interrupt_signal = 0;

extern "C" void record_interrupt(int signal_number) { g_interrupt_signal = signal_number; }

/// While alive, SIGINT, SIGTERM and SIGHUP only set a flag (the build polls it); signals that
/// were ignored stay ignored. Afterwards the previous handlers are back.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupt_signal = 0;
    struct sigaction action {};
    action.sa_handler = record_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR
    for (size_t i = 0; i < kSignals.size(); ++i) {
      ::sigaction(kSignals[i], nullptr, &previous_[i]);
      installed_[i] =
          previous_[i].sa_handler != SIG_IGN && ::sigaction(kSignals[i], &action, nullptr) == 0;
    }
  }
  ~InterruptGuard() { restore(); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static int pending() { return g_interrupt_signal; }

  /// Restores the previous handlers and delivers the pending signal to them (by default: the
  /// process ends). Returns the error to report if the process survives it.
  Status redeliver() {
    const int signal_number = g_interrupt_signal;
    restore();
    ::raise(signal_number);
    return internal_error("interrupted by signal " + std::to_string(signal_number));
  }

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};

  void restore() {
    for (size_t i = 0; i < kSignals.size(); ++i) {
      if (installed_[i]) ::sigaction(kSignals[i], &previous_[i], nullptr);
      installed_[i] = false;
    }
  }

  std::array<struct sigaction, 3> previous_{};
  std::array<bool, 3> installed_{};
};

// ---- files -------------------------------------------------------------------------------------

std::string errno_text() { return std::strerror(errno); }

Status write_file(const fs::path& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return io_error("cannot write '" + path.string() + "': " + errno_text());
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) return io_error("cannot write '" + path.string() + "': " + errno_text());
  return Status::ok();
}

/// Moves `source` to a temp file beside `target`: a rename on the same file system, else a copy
/// (the mode kept). `source` is gone or left as it was; `temp` holds the bytes either way.
Status move_to_temp(const fs::path& source, const fs::path& target, TempFile& temp) {
  INFERNO_RETURN_IF_ERROR(temp.create(target));
  if (::rename(source.c_str(), temp.path().c_str()) == 0) return Status::ok();
  if (errno != EXDEV)
    return io_error("cannot move '" + source.string() + "' to '" + temp.path().string() +
                    "': " + errno_text());
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return io_error("cannot read '" + source.string() + "': " + errno_text());
  struct stat st {};
  ::fstat(in, &st);
  std::vector<char> buffer(1 << 20);
  bool ok = true;
  while (ok) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = write_all(temp.fd(), buffer.data(), static_cast<size_t>(n));
  }
  const int saved = errno;
  ::close(in);
  if (!ok) return io_error("cannot write '" + target.string() + "': " + std::strerror(saved));
  ::fchmod(temp.fd(), st.st_mode & 07777);
  return Status::ok();
}

/// The build directory: a fresh one under the temp root, removed at the end unless kept.
class BuildDir {
 public:
  BuildDir() = default;
  BuildDir(const BuildDir&) = delete;
  BuildDir& operator=(const BuildDir&) = delete;
  ~BuildDir() {
    if (!keep_ && !path_.empty()) {
      remove_tree(path_.string());
    }
  }

  Status create(const std::string& keep_dir) {
    if (!keep_dir.empty()) {
      keep_ = true;
      path_ = fs::absolute(keep_dir);
      std::error_code ec;
      fs::create_directories(path_, ec);
      if (ec || !fs::is_directory(path_)) {
        return io_error("cannot create the build directory '" + keep_dir +
                        "': " + (ec ? ec.message() : std::string("not a directory")));
      }
      return Status::ok();
    }
    const char* tmpdir = std::getenv("TMPDIR");
    const fs::path root =
        tmpdir != nullptr && *tmpdir != '\0' ? fs::path(tmpdir) : fs::path("/tmp");
    std::string pattern = (root / "infernoc-build-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return io_error("cannot create a build directory in '" + root.string() +
                      "': " + errno_text());
    }
    path_ = pattern;
    return Status::ok();
  }
  const fs::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  fs::path path_;
  bool keep_ = false;
};

std::string first_lines(const fs::path& log, int count, int* total) {
  std::ifstream in(log);
  std::string line, text;
  *total = 0;
  while (std::getline(in, line)) {
    if (++*total <= count) text += "  " + line + "\n";
  }
  return text;
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::string format_size(uint64_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1ull << 20)) {
    std::snprintf(text, sizeof text, "%.1f KiB", b / 1024.0);
  } else if (bytes < (1ull << 30)) {
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024.0));
  } else {
    std::snprintf(text, sizeof text, "%.2f GiB", b / (1024.0 * 1024.0 * 1024.0));
  }
  return text;
}

namespace {

// The commands for `model` on this machine.
NvccPlan plan_for(const codegen::GeneratedModel& model, const BuildOptions& options) {
  const int cpus = available_cpus();
  return nvcc_plan(options, model.num_parts, options.jobs > 0 ? options.jobs : cpus, cpus);
}

}  // namespace

Status write_build_dir(const std::string& dir_name, const codegen::GeneratedModel& model,
                       const BuildOptions& options) {
  const fs::path dir(dir_name);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("cannot create the build directory '" + dir_name + "': " + ec.message());
  INFERNO_RETURN_IF_ERROR(
      write_file(dir / kSourceFile, model.cuda_source.data(), model.cuda_source.size()));
  INFERNO_RETURN_IF_ERROR(
      write_file(dir / kExportsFile, model.exports_map.data(), model.exports_map.size()));
  if (options.external_weights.empty()) {
    INFERNO_RETURN_IF_ERROR(
        write_file(dir / kWeightsFile, model.weights.data(), model.weights.size()));
  } else {
    fs::remove(dir / kWeightsFile, ec);  // a stale one from an earlier build in a kept directory
  }
  // The headers model.cu includes, copied so that nvcc sees only relative paths (see build.h).
  const std::pair<fs::path, fs::path> copies[] = {
      {fs::path(options.source_dirs.kernels_root) / "kernels", dir / "kernels"},
      {fs::path(options.source_dirs.include_dir) / "inferno", dir / "include" / "inferno"}};
  for (const auto& [from, to] : copies) {
    remove_tree(to.string());
    fs::create_directories(to, ec);
    if (!ec)
      fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    if (ec)
      return io_error("cannot copy '" + from.string() + "' to '" + to.string() +
                      "': " + ec.message());
  }
  const NvccPlan plan = plan_for(model, options);
  std::string command =
      plan.link.empty()
          ? "# the nvcc command infernoc ran (or would run); run it in this directory\n"
          : "# the nvcc commands infernoc ran (or would run) in this directory: the compiles at "
            "once, then the link\n";
  for (const std::vector<std::string>& argv : plan.compiles) command += shell_quote(argv) + "\n";
  if (!plan.link.empty()) command += shell_quote(plan.link) + "\n";
  return write_file(dir / kCommandFile, command.data(), command.size());
}

Status write_bytes_atomic(const std::string& path, const std::vector<std::byte>& bytes) {
  TempFile temp;
  INFERNO_RETURN_IF_ERROR(temp.create(fs::absolute(path)));
  if (!write_all(temp.fd(), bytes.data(), bytes.size()))
    return io_error("cannot write '" + path + "': " + errno_text());
  return temp.commit();
}

namespace {

// nvcc's end as a status: ok, or an internal error quoting its log (`log`, in `dir`).
Status nvcc_outcome(const ProcessResult& result, const fs::path& log, const fs::path& dir) {
  if (result.succeeded() || result.cancelled) return Status::ok();
  int total = 0;
  std::string quoted = first_lines(log, kQuotedLogLines, &total);
  if (total > kQuotedLogLines)
    quoted += "  ... (" + std::to_string(total - kQuotedLogLines) + " more lines)\n";
  return internal_error("nvcc failed on the generated code (" + result.describe_end() +
                        "); this is a bug in infernoc. nvcc said:\n" + quoted +
                        "the build directory is kept at '" + dir.string() + "' (" +
                        log.filename().string() + ": nvcc's output, command.txt: the commands)");
}

// Runs `plan` in `dir`: the compiles at once, each into a log of its own when there are
// several, then the link; nvcc.log ends up with all of their output in order. An interruption
// stops them and returns early (the caller checks for it).
Status run_plan(const NvccPlan& plan, const fs::path& dir) {
  const bool one = plan.link.empty();
  std::vector<RunOptions> runs(plan.compiles.size());
  std::vector<fs::path> logs;
  for (size_t k = 0; k < runs.size(); ++k) {
    logs.push_back(one ? dir / kLogFile : dir / ("nvcc-" + std::to_string(k) + ".log"));
    runs[k].cwd = dir.string();
    runs[k].output_file = logs.back().string();
    runs[k].cancel = [] { return InterruptGuard::pending() != 0; };
  }
  std::vector<Expected<ProcessResult>> results = run_programs(plan.compiles, runs);
  for (const Expected<ProcessResult>& result : results) {
    if (!result) return result.status();
  }
  for (size_t k = 0; k < results.size(); ++k)
    INFERNO_RETURN_IF_ERROR(nvcc_outcome(*results[k], logs[k], dir));
  if (one || InterruptGuard::pending() != 0) return Status::ok();

  const fs::path link_log = dir / "nvcc-link.log";
  RunOptions link = runs.front();
  link.output_file = link_log.string();
  INFERNO_ASSIGN_OR_RETURN(const ProcessResult linked, run_program(plan.link, link));
  std::ofstream all(dir / kLogFile, std::ios::binary | std::ios::trunc);
  logs.push_back(link_log);
  for (const fs::path& log : logs) all << read_text(log);
  return nvcc_outcome(linked, link_log, dir);
}

/// The build; on interruption it returns early (the caller delivers the signal once this
/// function's temp files and build directory are gone).
Status build(const codegen::GeneratedModel& model, const BuildOptions& options,
             BuildReport& report) {
  const auto start = std::chrono::steady_clock::now();
  const Status interrupted = internal_error("interrupted");

  std::error_code ec;
  const fs::path output = fs::absolute(options.output, ec);
  if (ec || output.filename().empty())
    return io_error("cannot write '" + options.output + "': not a file name");
  if (!fs::is_directory(output.parent_path(), ec)) {
    return io_error("cannot write '" + options.output + "': no directory '" +
                    output.parent_path().string() + "'");
  }
  if (fs::is_directory(output, ec))
    return io_error("cannot write '" + options.output + "': it is a directory");

  std::optional<BuildCache> cache;
  if (!options.cache_dir.empty()) {
    const auto lookup_start = std::chrono::steady_clock::now();
    cache.emplace(options.cache_dir);
    INFERNO_ASSIGN_OR_RETURN(report.cache_key, build_cache_key(model, options, kInfernoVersion));
    const double key_ms = elapsed_ms(lookup_start);
    report.cache = CacheOutcome::kBypassed;
    if (options.keep_build_dir.empty()) {
      INFERNO_ASSIGN_OR_RETURN(
          const CacheLookup lookup,
          cache->restore(report.cache_key, {output.string(), options.external_weights}));
      report.cache = lookup == CacheLookup::kHit    ? CacheOutcome::kHit
                     : lookup == CacheLookup::kMiss ? CacheOutcome::kMiss
                                                    : CacheOutcome::kCorrupt;
    }
    report.cache_lookup_ms = elapsed_ms(lookup_start);
    spdlog::debug("build cache: {}, key {} in {} (key {:.1f} ms, lookup {:.1f} ms)",
                  to_string(report.cache), report.cache_key, options.cache_dir, key_ms,
                  report.cache_lookup_ms - key_ms);
    if (InterruptGuard::pending() != 0) return interrupted;
    if (report.cache == CacheOutcome::kHit) {
      std::error_code size_ec;
      const uint64_t size = fs::file_size(output, size_ec);
      spdlog::info("wrote {} ({}) from the build cache", options.output, format_size(size));
      return Status::ok();
    }
  }

  auto step_start = std::chrono::steady_clock::now();
  BuildDir dir;
  INFERNO_RETURN_IF_ERROR(dir.create(options.keep_build_dir));
  INFERNO_RETURN_IF_ERROR(write_build_dir(dir.path().string(), model, options));
  report.build_dir_ms = elapsed_ms(step_start);
  if (InterruptGuard::pending() != 0) return interrupted;

  const NvccPlan plan = plan_for(model, options);
  spdlog::info("compiling model.cu with nvcc {} for {}{} ...",
               options.toolchain.version.to_string(), describe(options.archs),
               plan.link.empty() ? "" : " as " + std::to_string(plan.compiles.size()) + " objects");
  for (const std::vector<std::string>& argv : plan.compiles) {
    if (options.verbose) {
      spdlog::info("in {}: {}", dir.path().string(), shell_quote(argv));
    } else {
      spdlog::debug("in {}: {}", dir.path().string(), shell_quote(argv));
    }
  }
  step_start = std::chrono::steady_clock::now();
  const Status built = run_plan(plan, dir.path());
  report.nvcc_ms = elapsed_ms(step_start);
  if (InterruptGuard::pending() != 0) return interrupted;
  if (!built.is_ok()) {
    dir.keep();
    return built;
  }
  if (options.verbose) {
    const std::string log = read_text(dir.path() / kLogFile);
    if (!log.empty()) spdlog::info("nvcc said:\n{}", log);
  }

  // Both outputs complete in temp files first, then renamed: the .so last, so that a model.so
  // never appears without its weights.
  step_start = std::chrono::steady_clock::now();
  TempFile library;
  INFERNO_RETURN_IF_ERROR(move_to_temp(dir.path() / kLibraryFile, output, library));
  TempFile weights;
  if (!options.external_weights.empty()) {
    INFERNO_RETURN_IF_ERROR(weights.create(fs::absolute(options.external_weights)));
    if (!write_all(weights.fd(), model.weights.data(), model.weights.size())) {
      return io_error("cannot write '" + options.external_weights + "': " + errno_text());
    }
  }
  if (InterruptGuard::pending() != 0) return interrupted;
  if (!options.external_weights.empty()) INFERNO_RETURN_IF_ERROR(weights.commit());
  INFERNO_RETURN_IF_ERROR(library.commit());
  report.output_ms = elapsed_ms(step_start);

  // Only now, with the outputs in place, is the build stored; a cache that cannot take it costs
  // the next compile a build, never this one its result.
  if (cache) {
    step_start = std::chrono::steady_clock::now();
    const Status stored = cache->store(report.cache_key, output.string(),
                                       options.external_weights.empty() ? nullptr : &model.weights);
    if (!stored.is_ok()) spdlog::warn("not stored in the build cache: {}", stored.message());
    report.cache_store_ms = elapsed_ms(step_start);
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint64_t size = fs::file_size(output, ec);
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.1f s", seconds);
  if (options.external_weights.empty()) {
    spdlog::info("wrote {} ({}) in {}", options.output, format_size(size), elapsed);
  } else {
    spdlog::info("wrote {} ({}) and {} ({}) in {}", options.output, format_size(size),
                 options.external_weights, format_size(model.weights.size()), elapsed);
  }
  if (!options.keep_build_dir.empty())
    spdlog::info("kept the build directory {}", options.keep_build_dir);
  return Status::ok();
}

}  // namespace

const char* to_string(CacheOutcome outcome) {
  switch (outcome) {
    case CacheOutcome::kOff:
      return "off";
    case CacheOutcome::kHit:
      return "hit";
    case CacheOutcome::kMiss:
      return "miss";
    case CacheOutcome::kCorrupt:
      return "corrupt entry discarded";
    case CacheOutcome::kBypassed:
      return "not looked up (--keep-build)";
  }
  return "?";
}

Status build_shared_object(const codegen::GeneratedModel& model, const BuildOptions& options,
                           BuildReport* report) {
  InterruptGuard interrupts;
  BuildReport local;
  Status status = build(model, options, report != nullptr ? *report : local);
  if (InterruptGuard::pending() != 0) return interrupts.redeliver();
  return status;
}

}  // namespace inferno::driver
