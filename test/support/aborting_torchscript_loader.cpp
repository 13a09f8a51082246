// A stand-in for infernoc-torchscript that crashes the way a loader hit by a hostile file would:
// it prints a line and aborts. The tests point INFERNO_TORCHSCRIPT_LOADER at it; it is not built
// into or installed with infernoc.
#include <cstdio>
#include <cstdlib>

int main() {
  std::fprintf(stderr, "terminate called: the test loader aborts\n");
  std::abort();
}
