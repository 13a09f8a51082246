#include "support/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace inferno::test {
namespace {

std::string slurp_and_remove(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::filesystem::remove(path);
  return ss.str();
}

/// A test's infernoc runs never read or fill the user's build cache, also when the test
/// binary runs outside ctest (cmake/InfernoTestEnvironment.cmake); the cache tests name a
/// scratch --cache-dir, which overrides it. An INFERNO_NO_CACHE already set is kept.
[[maybe_unused]] const bool kNoUserCache = ::setenv("INFERNO_NO_CACHE", "1", /*overwrite=*/0) == 0;

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd) {
  char out_template[] = "/tmp/inferno_test_out_XXXXXX";
  char err_template[] = "/tmp/inferno_test_err_XXXXXX";
  const int out_fd = mkstemp(out_template);
  const int err_fd = mkstemp(err_template);
  ProcessResult result;
  if (out_fd < 0 || err_fd < 0) return result;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_fd);
  close(err_fd);
  if (rc == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  result.out = slurp_and_remove(out_template);
  result.err = slurp_and_remove(err_template);
  return result;
}

}  // namespace inferno::test
