// infernoc: the compiler's command-line entry point. Parses the command line, sets up logging,
// runs the command and turns its Status into a message and an exit code (docs/design.md).
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>

#include "cli/command.h"
#include "cli/options.h"

namespace {

void setup_logging(inferno::cli::Verbosity verbosity) {
  auto logger = spdlog::stderr_logger_st("infernoc");
  logger->set_pattern("infernoc: %v");
  switch (verbosity) {
    case inferno::cli::Verbosity::kQuiet:
      logger->set_level(spdlog::level::err);
      break;
    case inferno::cli::Verbosity::kNormal:
      logger->set_level(spdlog::level::info);
      break;
    case inferno::cli::Verbosity::kVerbose:
      logger->set_level(spdlog::level::debug);
      break;
  }
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    inferno::cli::ParsedCommandLine parsed = inferno::cli::parse_command_line(argc, argv);
    if (!parsed.options) return parsed.exit_code;
    setup_logging(parsed.options->verbosity);
    inferno::Status status = inferno::cli::run_command(*parsed.options);
    if (status.is_ok()) return 0;
    std::fprintf(stderr, "infernoc: error: %s\n", status.to_string().c_str());
    return static_cast<int>(status.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "infernoc: internal error: uncaught exception: %s\n", e.what());
    return static_cast<int>(inferno::ErrorCode::kInternal);
  }
}
