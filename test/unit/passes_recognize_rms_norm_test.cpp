// recognize-rms-norm: RMSNorm written out becomes rms_norm. rms_norm computes each element in one
// step where the written-out form rounded each op, so f32 compares at fp32 tolerances and the
// f16 form (computed in f32 by the model, rounded to f16 once or twice) at f16's.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

constexpr test::Tolerance kF16{1e-3, 1e-5};

TEST_CASE("recognize-rms-norm: Llama's RMSNorm, f16 in, computed in f32, weight after the cast") {
  check_pass({"recognize-rms-norm", "dce"}, R"(
graph(%x: f16[2,4,16], %w: f16[16]) {
  %two: f32[] = constant [2.0]
  %eps: f32[] = constant [0.0009765625]
  %xf: f32[2,4,16] = cast(%x) {dtype=f32}
  %sq: f32[2,4,16] = pow(%xf, %two)
  %m: f32[2,4,1] = mean(%sq) {dims=[2], keepdim=true}
  %v: f32[2,4,1] = add(%m, %eps)
  %r: f32[2,4,1] = rsqrt(%v)
  %n: f32[2,4,16] = mul(%xf, %r)
  %nh: f16[2,4,16] = cast(%n) {dtype=f16}
  %y: f16[2,4,16] = mul(%w, %nh)
  return %y
})",
             R"(
graph(%x: f16[2,4,16], %w: f16[16]) {
  %y: f16[2,4,16] = rms_norm(%x, %w) {eps=0.0009765625, normalized_dims=1}
  return %y
})",
             kF16);
}

TEST_CASE("recognize-rms-norm: f32, x * x, 1 / sqrt, and a [1, 1, D] constant weight") {
  check_pass({"recognize-rms-norm", "dce"}, R"(
graph(%x: f32[3,5,8]) {
  %one: f32[] = constant [1.0]
  %eps: f32[1] = constant [0.0625]
  %w: f32[1,1,8] = constant [1, 2, 3, 4, -1, -2, 0.5, 0.25]
  %sq: f32[3,5,8] = mul(%x, %x)
  %m: f32[3,5,1] = mean(%sq) {dims=[2], keepdim=true}
  %v: f32[3,5,1] = add(%eps, %m)
  %s: f32[3,5,1] = sqrt(%v)
  %r: f32[3,5,1] = div(%one, %s)
  %n: f32[3,5,8] = mul(%r, %x)
  %y: f32[3,5,8] = mul(%n, %w)
  return %y
})",
             R"(
graph(%x: f32[3,5,8]) {
  %w_row: f32[8] = constant [1, 2, 3, 4, -1, -2, 0.5, 0.25]
  %y: f32[3,5,8] = rms_norm(%x, %w_row) {eps=0.0625, normalized_dims=1}
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-rms-norm: x / sqrt, no weight, T5's f16 input times the f32 rsqrt") {
  check_pass({"recognize-rms-norm", "dce"}, R"(
graph(%x: f32[4,8], %h: f16[4,8]) {
  %two: f32[] = constant [2.0]
  %eps: f32[] = constant [0.0078125]
  %sq: f32[4,8] = pow(%x, %two)
  %m: f32[4,1] = mean(%sq) {dims=[1], keepdim=true}
  %v: f32[4,1] = add(%m, %eps)
  %s: f32[4,1] = sqrt(%v)
  %y: f32[4,8] = div(%x, %s)
  %hf: f32[4,8] = cast(%h) {dtype=f32}
  %hsq: f32[4,8] = pow(%hf, %two)
  %hm: f32[4,1] = mean(%hsq) {dims=[1], keepdim=true}
  %hv: f32[4,1] = add(%hm, %eps)
  %hr: f32[4,1] = rsqrt(%hv)
  %hn: f32[4,8] = mul(%h, %hr)
  return %y, %hn
})",
             R"(
graph(%x: f32[4,8], %h: f16[4,8]) {
  %y: f32[4,8] = rms_norm(%x) {eps=0.0078125, normalized_dims=1}
  %hf: f32[4,8] = cast(%h) {dtype=f32}
  %hn: f32[4,8] = rms_norm(%hf) {eps=0.0078125, normalized_dims=1}
  return %y, %hn
})",
             test::kFp32);
}

TEST_CASE("recognize-rms-norm: a weight of another dtype than the norm stays outside the casts") {
  // Weight (f32) before the cast back: the norm stays in f32 with its weight, the casts stay.
  check_pass({"recognize-rms-norm", "dce"}, R"(
graph(%x: f16[2,8], %w: f32[8]) {
  %two: f32[] = constant [2.0]
  %eps: f32[] = constant [0.0009765625]
  %xf: f32[2,8] = cast(%x) {dtype=f32}
  %sq: f32[2,8] = pow(%xf, %two)
  %m: f32[2,1] = mean(%sq) {dims=[1], keepdim=true}
  %v: f32[2,1] = add(%m, %eps)
  %r: f32[2,1] = rsqrt(%v)
  %n: f32[2,8] = mul(%xf, %r)
  %nw: f32[2,8] = mul(%w, %n)
  %y: f16[2,8] = cast(%nw) {dtype=f16}
  return %y
})",
             R"(
graph(%x: f16[2,8], %w: f32[8]) {
  %xf: f32[2,8] = cast(%x) {dtype=f32}
  %nw: f32[2,8] = rms_norm(%xf, %w) {eps=0.0009765625, normalized_dims=1}
  %y: f16[2,8] = cast(%nw) {dtype=f16}
  return %y
})",
             kF16);
}

TEST_CASE("recognize-rms-norm leaves other dims, other powers, other operands and full weights") {
  // The mean over dim 0, not the last.
  check_unchanged({"recognize-rms-norm"}, R"(
graph(%x: f32[4,8]) {
  %two: f32[] = constant [2.0]
  %eps: f32[] = constant [0.0078125]
  %sq: f32[4,8] = pow(%x, %two)
  %m: f32[1,8] = mean(%sq) {dims=[0], keepdim=true}
  %v: f32[1,8] = add(%m, %eps)
  %r: f32[1,8] = rsqrt(%v)
  %y: f32[4,8] = mul(%x, %r)
  return %y
})");
  // x^3, and the squares of another value than the one normalized.
  check_unchanged({"recognize-rms-norm"}, R"(
graph(%x: f32[4,8], %z: f32[4,8]) {
  %three: f32[] = constant [3.0]
  %eps: f32[] = constant [0.0078125]
  %sq: f32[4,8] = pow(%x, %three)
  %m: f32[4,1] = mean(%sq) {dims=[1], keepdim=true}
  %v: f32[4,1] = add(%m, %eps)
  %r: f32[4,1] = rsqrt(%v)
  %y: f32[4,8] = mul(%x, %r)
  %zsq: f32[4,8] = mul(%z, %z)
  %zm: f32[4,1] = mean(%zsq) {dims=[1], keepdim=true}
  %zv: f32[4,1] = add(%zm, %eps)
  %zr: f32[4,1] = rsqrt(%zv)
  %y2: f32[4,8] = mul(%x, %zr)
  return %y, %y2
})");
  // A weight that varies along the rows too is no rms_norm weight: only the norm is recognized.
  check_pass({"recognize-rms-norm", "dce"}, R"(
graph(%x: f32[4,8], %w: f32[4,8]) {
  %two: f32[] = constant [2.0]
  %eps: f32[] = constant [0.0078125]
  %sq: f32[4,8] = pow(%x, %two)
  %m: f32[4,1] = mean(%sq) {dims=[1], keepdim=true}
  %v: f32[4,1] = add(%m, %eps)
  %r: f32[4,1] = rsqrt(%v)
  %n: f32[4,8] = mul(%x, %r)
  %y: f32[4,8] = mul(%n, %w)
  return %y
})",
             R"(
graph(%x: f32[4,8], %w: f32[4,8]) {
  %n: f32[4,8] = rms_norm(%x) {eps=0.0078125, normalized_dims=1}
  %y: f32[4,8] = mul(%n, %w)
  return %y
})",
             test::kFp32);
}

}  // namespace
}  // namespace inferno
