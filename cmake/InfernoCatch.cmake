# Catch2 (2.x or 3.x) for the test directories: the main library to link and
# inferno_catch_tests(), which registers each test case with CTest. Included by each directory of
# tests, whose C++ it compiles unoptimized (below).
find_package(Catch2 REQUIRED)
include(Catch)

# Test code compiles unoptimized, its debug information kept: at the build type's -O2 it was about
# half of a fresh build's compile time, and the tests spend their time in the libraries under test
# (and in nvcc), which keep the build type's level. For the including directory and those below.
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-O0>)

if(Catch2_VERSION VERSION_GREATER_EQUAL 3)
  set(INFERNO_CATCH_MAIN Catch2::Catch2WithMain)
elseif(NOT TARGET inferno_catch_main)
  add_library(inferno_catch_main STATIC "${PROJECT_SOURCE_DIR}/test/support/catch_main.cpp")
  target_link_libraries(inferno_catch_main PUBLIC Catch2::Catch2)
  set(INFERNO_CATCH_MAIN inferno_catch_main)
else()
  set(INFERNO_CATCH_MAIN inferno_catch_main)
endif()

# inferno_catch_tests(target prefix [PROPERTIES ...]): one CTest test per test case of `target`.
# A run whose filter matched no test case must fail: CTest passes each case's name as a Catch2
# filter, and a name with ';' or ',' (split into several filters) or a leading '-' (read as an
# option) would otherwise "pass" without running anything. Catch2 2.x spells that warning
# `NoTests`; 3.x has no such warning (it refuses unknown ones) and spells it `UnmatchedTestSpec`.
# Without TorchScript support (INFERNO_TORCHSCRIPT=OFF), test cases tagged [torchscript], which read
# .pt files, are left out.
# Under the sanitizers (INFERNO_SANITIZE, tools/sanitize.sh) each executable is instead one CTest
# test, "<prefix>every test case of <target>", all its cases in one process: a sanitized test process takes
# about a second to start, longer than most cases take, and there are hundreds of cases. Its
# [nvcc] cases (minutes of nvcc, which runs none of our code) are left out there.
function(inferno_catch_tests target prefix)
  if(Catch2_VERSION VERSION_GREATER_EQUAL 3)
    set(unmatched UnmatchedTestSpec)
  else()
    set(unmatched NoTests)
  endif()
  set(excluded)
  if(NOT INFERNO_TORCHSCRIPT)
    set(excluded "~[torchscript]")
  endif()
  if(INFERNO_SANITIZE)
    set(name "${prefix}every test case of ${target}")
    add_test(NAME "${name}" COMMAND ${target} "${excluded}~[nvcc]" -w ${unmatched})
    if(ARGN)
      set_tests_properties("${name}" ${ARGN})
    endif()
    return()
  endif()
  set(spec)
  if(excluded)
    set(spec TEST_SPEC "${excluded}")
  endif()
  catch_discover_tests(${target} TEST_PREFIX "${prefix}" ${spec} EXTRA_ARGS -w ${unmatched} ${ARGN})
endfunction()
