// kernels/model_prelude.cuh: what every generated model.cu opens with, so that the file holds only
// what is its own. The CUDA types its kernels use, the model ABI, the session helpers
// (model_session.cuh), and the weights blob's symbols with the macro that embeds it. Header-only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "inferno/model_abi.h"
#include "inferno/model_dims.h"
#include "inferno/model_profile.h"
#include "kernels/model_session.cuh"

// The embedded weights blob, when the model has one (INFERNO_MODEL_EMBED_WEIGHTS); a model with
// external weights or none never refers to them.
extern "C" __attribute__((visibility("hidden"))) const unsigned char inferno_weights_begin[];
extern "C" __attribute__((visibility("hidden"))) const unsigned char inferno_weights_end[];

// Embeds a file into the host object, 256-byte aligned, between inferno_weights_begin and
// inferno_weights_end. `incbin` is the assembler directive naming it, `.incbin "weights.bin"\n`,
// a path relative to nvcc's working directory (the build directory). Host pass only: use it inside
// #ifndef __CUDA_ARCH__.
#define INFERNO_MODEL_EMBED_WEIGHTS(incbin)                \
  asm(".section .rodata.inferno_weights,\"a\",@progbits\n" \
      ".balign 256\n"                                      \
      ".globl inferno_weights_begin\n"                     \
      ".hidden inferno_weights_begin\n"                    \
      "inferno_weights_begin:\n" incbin                    \
      ".globl inferno_weights_end\n"                       \
      ".hidden inferno_weights_end\n"                      \
      "inferno_weights_end:\n"                             \
      ".previous\n")

// A model whose run_steps() is in parts (codegen's emit_run) can be built as several objects
// compiled in parallel (src/driver/build.cpp): each compile of model.cu then defines
// INFERNO_MODEL_PARTS_FROM and _TO, the parts it holds, and INFERNO_MODEL_MAIN, 1 for the one
// object that holds the rest (the weights, the session, the descriptors, the entry points).
// Without them one compile holds everything.
#ifndef INFERNO_MODEL_PARTS_FROM
#define INFERNO_MODEL_PARTS_FROM 0
#define INFERNO_MODEL_PARTS_TO 0x7fffffff
#define INFERNO_MODEL_MAIN 1
#endif
#define MODEL_PART_HERE(k) (INFERNO_MODEL_PARTS_FROM <= (k) && (k) <= INFERNO_MODEL_PARTS_TO)
#if !INFERNO_MODEL_MAIN
// An object of parts only: the model's size constants, which the rest reads, go unused here.
#pragma nv_diag_suppress 177
#endif
