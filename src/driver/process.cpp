// posix_spawn with file actions: stdin from /dev/null, stdout+stderr to a file or a pipe, the
// working directory set in the child (posix_spawn_file_actions_addchdir_np, glibc 2.29+). The
// child leads its own process group so that stopping it also stops what it started (nvcc runs
// cicc, ptxas and the host compiler as children).
#include "driver/process.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <thread>

#include "support/check.h"

extern char** environ;

namespace inferno::driver {
namespace {

constexpr int kPollMilliseconds = 50;
constexpr auto kTermGrace = std::chrono::seconds(2);

class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

class SpawnAttributes {
 public:
  SpawnAttributes() { posix_spawnattr_init(&attr_); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawnattr_t* get() { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

/// Reads what is available from a non-blocking fd; false at end of file or on an error.
bool drain(int fd, std::string& out, size_t max_bytes) {
  char buffer[8192];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const size_t room = max_bytes > out.size() ? max_bytes - out.size() : 0;
      out.append(buffer, std::min(room, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;
  }
}

/// Decodes a waitpid status into `result`.
void record_status(int status, ProcessResult& result) {
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
}

/// Stops the child's process group: SIGTERM, then SIGKILL if it lingers. Returns its status.
int stop_group(pid_t pid) {
  ::kill(-pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kTermGrace;
  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    ::poll(nullptr, 0, kPollMilliseconds);
  }
  ::kill(-pid, SIGKILL);  // anything of the group still alive (grandchildren)
  return status;
}

}  // namespace

std::string ProcessResult::describe_end() const {
  if (cancelled) return "cancellation";
  if (timed_out) return "a timeout";
  if (signal != 0) return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exit_code);
}

Expected<ProcessResult> run_program(const std::vector<std::string>& argv,
                                    const RunOptions& options) {
  if (argv.empty()) return internal_error("run_program: empty argv");
  FileActions actions;
  int pipe_fds[2] = {-1, -1};
  const bool capture = options.output_file.empty();
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (capture) {
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
      return io_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_adddup2(actions.get(), pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(actions.get(), pipe_fds[1], STDERR_FILENO);
  } else {
    // Opened before the chdir below, so a relative output_file is relative to our directory.
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, options.output_file.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
  }
  if (!options.cwd.empty())
    posix_spawn_file_actions_addchdir_np(actions.get(), options.cwd.c_str());

  SpawnAttributes attr;
  posix_spawnattr_setflags(attr.get(), POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(attr.get(), 0);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], actions.get(), attr.get(), args.data(), environ);
  if (capture) ::close(pipe_fds[1]);
  if (rc != 0) {
    if (capture) ::close(pipe_fds[0]);
    std::string where = options.cwd.empty() ? "" : " in '" + options.cwd + "'";
    return toolchain_error("cannot run '" + argv[0] + "'" + where + ": " + std::strerror(rc));
  }

  ProcessResult result;
  if (capture) ::fcntl(pipe_fds[0], F_SETFL, ::fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
  bool pipe_open = capture;
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (true) {
    if (pipe_open) {
      pollfd pfd{pipe_fds[0], POLLIN, 0};
      if (::poll(&pfd, 1, kPollMilliseconds) > 0)
        pipe_open = drain(pipe_fds[0], result.output, options.max_captured_bytes);
    } else {
      ::poll(nullptr, 0, kPollMilliseconds);
    }
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      record_status(status, result);
      break;
    }
    if (r < 0 && errno != EINTR) {
      if (capture) ::close(pipe_fds[0]);
      return internal_error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    const bool cancel = options.cancel && options.cancel();
    const bool late =
        options.timeout && std::chrono::steady_clock::now() - start >= *options.timeout;
    if (cancel || late) {
      result.cancelled = cancel;
      result.timed_out = !cancel;
      record_status(stop_group(pid), result);
      break;
    }
  }
  if (capture) {
    if (pipe_open) drain(pipe_fds[0], result.output, options.max_captured_bytes);
    ::close(pipe_fds[0]);
  }
  return result;
}

std::string ProcessResult::last_line() const {
  std::string_view text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const size_t start = text.rfind('\n');
  return std::string(start == std::string_view::npos ? text : text.substr(start + 1));
}

std::vector<Expected<ProcessResult>> run_programs(
    const std::vector<std::vector<std::string>>& argvs, const std::vector<RunOptions>& options) {
  INFERNO_CHECK(argvs.size() == options.size(), "run_programs: one RunOptions per program");
  std::atomic<bool> failed{false};
  std::vector<std::optional<Expected<ProcessResult>>> results(argvs.size());
  {
    std::vector<std::thread> threads;
    threads.reserve(argvs.size());
    for (size_t i = 0; i < argvs.size(); ++i) {
      threads.emplace_back([&, i] {
        RunOptions run = options[i];
        run.cancel = [&failed, own = options[i].cancel] { return failed.load() || (own && own()); };
        results[i].emplace(run_program(argvs[i], run));
        if (!*results[i] || !(*results[i])->succeeded()) failed = true;
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  std::vector<Expected<ProcessResult>> out;
  out.reserve(results.size());
  for (auto& result : results) out.push_back(std::move(*result));
  return out;
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

void remove_tree(const std::string& path) {
  // Depth first, so directories are empty when their turn comes; errors skip the entry.
  auto remove_entry = [](const char* entry, const struct stat*, int, struct FTW*) {
    ::remove(entry);
    return 0;
  };
  ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=,+:@%") == std::string::npos;
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) {
      if (c == '\'') {
        line += "'\\''";
      } else {
        line += c;
      }
    }
    line += '\'';
  }
  return line;
}

}  // namespace inferno::driver
