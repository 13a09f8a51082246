// kernels/conv_igemm_plan.h: which of conv2d_igemm's kernel variants a convolution's layout and
// shape select (the plan: layout and chunk loads; the tiles: tile shape and kernel), for host and
// device. The kernel is instantiated per layout (NCHW or NHWC) and per
// chunk load (16-byte vectors or one element at a time, for the input A and the weights W), so a
// launcher that decides at run time carries five kernels per dtype and activation, most of which
// a model never runs, and each costs about a second of nvcc. Codegen knows the layout and the
// shape, so it names the plan and model.cu instantiates only that variant and the scalar one
// (kept for pointers that turn out misaligned). Plain C++17 with no CUDA headers: codegen
// (src/codegen/emit_conv.cpp) and the launcher (conv_igemm.cuh) read the same rule.
#pragma once

#include <cstdint>

#include "kernels/host_device.h"

namespace inferno::kernels {

/// kAny: the launcher decides everything at run time (tests, benchmarks, any caller without a
/// plan). The others: a layout and the widest chunk loads the shape allows: the weights' rows by
/// vectors when K (C * KH * KW) is a multiple of the vector, the input's too when it is NHWC and C
/// is a multiple of it (in NCHW a chunk of A gathers across pixels).
enum class IgemmPlan : int {
  kAny = 0,
  kNchw,
  kNchwVecW,
  kNhwc,
  kNhwcVecW,
  kNhwcVecAW,
};

/// The plan for a groups-1 conv2d of `c` input channels and `k` = C * KH * KW in layout `nhwc`,
/// with elements of `element_bytes` (a vector is 16 bytes).
INFERNO_HD constexpr IgemmPlan igemm_plan(bool nhwc, int64_t c, int64_t k, int64_t element_bytes) {
  const int64_t vector = 16 / element_bytes;
  const bool vec_w = k % vector == 0;
  const bool vec_a = nhwc && c % vector == 0;
  if (!nhwc) return vec_w ? IgemmPlan::kNchwVecW : IgemmPlan::kNchw;
  if (vec_a && vec_w) return IgemmPlan::kNhwcVecAW;
  return vec_w ? IgemmPlan::kNhwcVecW : IgemmPlan::kNhwc;
}

INFERNO_HD constexpr bool igemm_plan_nhwc(IgemmPlan plan) {
  return plan == IgemmPlan::kNhwc || plan == IgemmPlan::kNhwcVecW || plan == IgemmPlan::kNhwcVecAW;
}
INFERNO_HD constexpr bool igemm_plan_vec_a(IgemmPlan plan) { return plan == IgemmPlan::kNhwcVecAW; }
INFERNO_HD constexpr bool igemm_plan_vec_w(IgemmPlan plan) {
  return plan == IgemmPlan::kNchwVecW || plan == IgemmPlan::kNhwcVecW ||
         plan == IgemmPlan::kNhwcVecAW;
}

/// The tile shape and kernel of a call. kStaged: 64 x 64 tiles, register-staged double buffering
/// (conv_igemm.cuh; every plan and dtype). kPipe*: the multi-stage cp.async kernel on tensor cores
/// (conv_igemm_pipelined.cuh; 16-bit types, plan kNhwcVecAW, sm_80 and later, else the
/// staged kernel runs). kWgmma*: the same loads feeding Hopper's wgmma (conv_igemm_wgmma.cuh;
/// code built for sm_90a only, on a 9.0 GPU, else the kPipe kernel of the tile runs). kAuto: the
/// launcher applies igemm_tiles with the GPU's SM count (never wgmma: it cannot see the build).
enum class IgemmTiles : int {
  kAuto = 0,
  kStaged,
  kPipe64x64,
  kPipe128x64,
  kPipe128x128,
  kWgmma128x64,
  kWgmma128x128,
};

/// The SM count codegen chooses tiles for when it names them (an H100 SXM's 132): on a GPU with
/// other counts the choice stays correct, only the wave count it was made for differs.
constexpr int64_t kIgemmReferenceSms = 132;

INFERNO_HD constexpr bool igemm_tiles_wgmma(IgemmTiles tiles) {
  return tiles == IgemmTiles::kWgmma128x64 || tiles == IgemmTiles::kWgmma128x128;
}
/// Tiles of the kernels that copy with cp.async (mma.sync or wgmma): 16-bit, kNhwcVecAW.
INFERNO_HD constexpr bool igemm_tiles_pipelined(IgemmTiles tiles) {
  return tiles == IgemmTiles::kPipe64x64 || tiles == IgemmTiles::kPipe128x64 ||
         tiles == IgemmTiles::kPipe128x128 || igemm_tiles_wgmma(tiles);
}
/// The mma.sync tiles a wgmma tile falls back to (the tile itself otherwise).
INFERNO_HD constexpr IgemmTiles igemm_tiles_mma_sync(IgemmTiles tiles) {
  return tiles == IgemmTiles::kWgmma128x64    ? IgemmTiles::kPipe128x64
         : tiles == IgemmTiles::kWgmma128x128 ? IgemmTiles::kPipe128x128
                                              : tiles;
}

/// The tiles for a conv of plan `plan` and elements of `element_bytes` (a gate or not alike), as a
/// GEMM of m rows (N * OH * OW) by o columns on a GPU of `sms` SMs: the largest pipelined tile
/// that still gives every SM a block (larger tiles read each byte into more products; fewer
/// tiles than SMs leave SMs idle, and the 64 x 64 tile splits K over a cluster then). With
/// `wgmma` (code built for sm_90a alone) the 128-row tiles are wgmma's, 128 x 64 from half as
/// many tiles as SMs (its faster K loop outweighs the idle SMs).
INFERNO_HD constexpr IgemmTiles igemm_tiles(IgemmPlan plan, int64_t element_bytes, int64_t m,
                                            int64_t o, int64_t sms, bool wgmma = false) {
  if (element_bytes != 2 || plan != IgemmPlan::kNhwcVecAW) return IgemmTiles::kStaged;
  const int64_t tiles_128x128 = ((m + 127) / 128) * ((o + 127) / 128);
  const int64_t tiles_128x64 = ((m + 127) / 128) * ((o + 63) / 64);
  if (wgmma) {  // measured (H200, ResNet's shapes): 128 x 64 wgmma wins from half a wave of tiles
    if (o > 64 && tiles_128x128 >= sms) return IgemmTiles::kWgmma128x128;
    if (2 * tiles_128x64 >= sms) return IgemmTiles::kWgmma128x64;
    return IgemmTiles::kPipe64x64;
  }
  if (o > 64 && tiles_128x128 >= sms) return IgemmTiles::kPipe128x128;
  if (tiles_128x64 >= sms) return IgemmTiles::kPipe128x64;
  return IgemmTiles::kPipe64x64;
}

constexpr const char* igemm_tiles_name(IgemmTiles tiles) {
  switch (tiles) {
    case IgemmTiles::kAuto:
      return "kAuto";
    case IgemmTiles::kStaged:
      return "kStaged";
    case IgemmTiles::kPipe64x64:
      return "kPipe64x64";
    case IgemmTiles::kPipe128x64:
      return "kPipe128x64";
    case IgemmTiles::kPipe128x128:
      return "kPipe128x128";
    case IgemmTiles::kWgmma128x64:
      return "kWgmma128x64";
    case IgemmTiles::kWgmma128x128:
      return "kWgmma128x128";
  }
  return "kAuto";
}

/// The plan's name as codegen writes it into model.cu ("kNhwcVecAW").
constexpr const char* igemm_plan_name(IgemmPlan plan) {
  switch (plan) {
    case IgemmPlan::kAny:
      return "kAny";
    case IgemmPlan::kNchw:
      return "kNchw";
    case IgemmPlan::kNchwVecW:
      return "kNchwVecW";
    case IgemmPlan::kNhwc:
      return "kNhwc";
    case IgemmPlan::kNhwcVecW:
      return "kNhwcVecW";
    case IgemmPlan::kNhwcVecAW:
      return "kNhwcVecAW";
  }
  return "kAny";
}

}  // namespace inferno::kernels
