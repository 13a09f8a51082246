// Catch2 2.x (Debian here) and 3.x (the GPU machine) behind one include.
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;  // global in 2.x
#else
#include <catch2/catch.hpp>
#endif
