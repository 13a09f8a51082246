# Sanitizer and fuzzing builds (tools/sanitize.sh configures one; docs/fuzzing.md).
#
# INFERNO_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer on every C++ file of ours, any
# report fatal. LibTorch and the system libraries stay uninstrumented; ASan still checks their
# allocations. INFERNO_FUZZ (clang only): coverage instrumentation for libFuzzer on every C++ file,
# and the fuzz targets of test/fuzz linked against libFuzzer's main.
option(INFERNO_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(INFERNO_FUZZ "Build the libFuzzer targets (needs clang)" OFF)

if(INFERNO_SANITIZE)
  # vptr checks need RTTI of every class they see, which the uninstrumented LibTorch headers' types
  # cannot promise across libraries; the rest of -fsanitize=undefined applies.
  set(INFERNO_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize=vptr
                              -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${INFERNO_SANITIZER_FLAGS}>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:-fsanitize=address,undefined>")
endif()

if(INFERNO_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "INFERNO_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>")
endif()
