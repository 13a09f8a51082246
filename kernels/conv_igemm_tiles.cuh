// kernels/conv_igemm_tiles.cuh: the pieces of conv_igemm.cuh's kernels: the conv's sizes in 32
// bits, the tile shapes, gathering A (the input under the kernel window, gated) and W chunks into
// registers, the output's index, the epilogue of one output, the tensor-core instruction, and the
// split-K reduction across a thread block cluster. conv_igemm.cuh says how they fit together.
#pragma once

#include "common.cuh"
#include "conv.cuh"

namespace inferno::kernels {
namespace detail {

/// A conv2d's sizes in the 32-bit integers the igemm kernels index with (conv_igemm_fits checks
/// that they fit); element offsets are computed in 64 bits.
struct IgemmGeom {
  int c, h, w, o, kh, kw, oh, ow;
  int sh, sw, pt, pl, dh, dw;
  int k;      ///< c * kh * kw
  int64_t m;  ///< n * oh * ow
};

/// The tile shape for T: tensor cores for 16-bit types, FMAs otherwise.
template <typename T>
struct IgemmTile {
  static constexpr bool kMma = sizeof(T) == 2;
  static constexpr int kM = 64, kN = 64;
  static constexpr int kK = kMma ? 32 : 16;
  static constexpr int kThreads = kMma ? 128 : 256;
  static constexpr int kVec = kPack16<T>;  ///< elements per 16-byte chunk
  // Shared rows are padded so that fragment reads (mma) and row stores hit distinct banks.
  static constexpr int kPad = kMma ? 8 : 4;
};

/// Which chunks of a kRows x kCols tile this thread loads: chunk i is row row(i), columns
/// col(i) .. col(i) + kVec - 1; consecutive threads take consecutive chunks of a row.
template <typename T, int kRows, int kCols, int kThreads>
struct TileChunks {
  static constexpr int kVec = kPack16<T>;
  static constexpr int kPerRow = kCols / kVec;
  static constexpr int kCount = kRows * kPerRow / kThreads;
  static_assert(kCols % kVec == 0 && (kRows * kPerRow) % kThreads == 0, "chunks tile the tile");
  __device__ static int row(int i) {
    return (static_cast<int>(threadIdx.x) + i * kThreads) / kPerRow;
  }
  __device__ static int col(int i) {
    return (static_cast<int>(threadIdx.x) + i * kThreads) % kPerRow * kVec;
  }
};

/// One output pixel (a row of A) as the loads need it.
struct PixelRow {
  int64_t image;  ///< offset of image n in x
  int n, iy0, ix0;
  bool valid;  ///< m < M
};

__device__ __forceinline__ PixelRow pixel_row(const IgemmGeom& g, int64_t m) {
  PixelRow p{};
  p.valid = m < g.m;
  if (!p.valid) return p;
  const int64_t plane = static_cast<int64_t>(g.oh) * g.ow;
  p.n = static_cast<int>(m / plane);
  const int pix = static_cast<int>(m - p.n * plane);
  const int oy = pix / g.ow, ox = pix - oy * g.ow;
  p.iy0 = oy * g.sh - g.pt;
  p.ix0 = ox * g.sw - g.pl;
  p.image = static_cast<int64_t>(p.n) * g.c * g.h * g.w;
  return p;
}

/// A k index split into (c, ky, kx), stepped in the layout's k order.
template <bool kNhwc>
struct KPos {
  int c, ky, kx;
  __device__ KPos(const IgemmGeom& g, int k) {
    if constexpr (kNhwc) {
      const int tap = k / g.c;
      c = k - tap * g.c;
      ky = tap / g.kw;
      kx = tap - ky * g.kw;
    } else {
      const int taps = g.kh * g.kw;
      c = k / taps;
      const int tap = k - c * taps;
      ky = tap / g.kw;
      kx = tap - ky * g.kw;
    }
  }
  __device__ void next(const IgemmGeom& g) {
    if constexpr (kNhwc) {
      if (++c == g.c) {
        c = 0;
        if (++kx == g.kw) kx = 0, ++ky;
      }
    } else if (++kx == g.kw) {
      kx = 0;
      if (++ky == g.kh) ky = 0, ++c;
    }
  }
};

/// x at (pixel p, tap q), gated; zero in the padding (the gate scales x, not the padding).
template <bool kNhwc, typename T>
__device__ __forceinline__ T input_value(const T* x, const T* gate, const IgemmGeom& g,
                                         const PixelRow& p, const KPos<kNhwc>& q) {
  const int iy = p.iy0 + q.ky * g.dh, ix = p.ix0 + q.kx * g.dw;
  if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) return from_float<T>(0.0f);
  const int64_t at = kNhwc ? p.image + (static_cast<int64_t>(iy) * g.w + ix) * g.c + q.c
                           : p.image + (static_cast<int64_t>(q.c) * g.h + iy) * g.w + ix;
  const T v = x[at];
  if (gate == nullptr) return v;
  return from_acc<T>(to_acc(v) * to_acc(gate[static_cast<int64_t>(p.n) * g.c + q.c]));
}

/// A[p, k .. k + V - 1] into `dst`. kVector: one 16-byte load of V channels of one pixel (NHWC,
/// C a multiple of V, so the chunk never straddles a tap and is aligned).
template <bool kNhwc, bool kVector, typename T, int V>
__device__ __forceinline__ void load_a(Pack<T, V>& dst, const T* x, const T* gate,
                                       const IgemmGeom& g, const PixelRow& p, int k) {
  const T zero = from_float<T>(0.0f);
#pragma unroll
  for (int j = 0; j < V; ++j) dst.v[j] = zero;
  if (!p.valid || k >= g.k) return;
  KPos<kNhwc> q(g, k);
  if constexpr (kVector) {
    static_assert(kNhwc, "vector input loads: NHWC");
    const int iy = p.iy0 + q.ky * g.dh, ix = p.ix0 + q.kx * g.dw;
    if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) return;
    dst = load_pack<V>(x + p.image + (static_cast<int64_t>(iy) * g.w + ix) * g.c + q.c);
    if (gate != nullptr) {
      const T* gp = gate + static_cast<int64_t>(p.n) * g.c + q.c;
#pragma unroll
      for (int j = 0; j < V; ++j) dst.v[j] = from_acc<T>(to_acc(dst.v[j]) * to_acc(gp[j]));
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (k + j < g.k) dst.v[j] = input_value<kNhwc>(x, gate, g, p, q);
      q.next(g);
    }
  }
}

/// W[o, k .. k + V - 1] into `dst`. kVector: K a multiple of V and w 16-byte aligned.
template <bool kVector, typename T, int V>
__device__ __forceinline__ void load_w(Pack<T, V>& dst, const T* w, const IgemmGeom& g, int o,
                                       int k) {
  const T zero = from_float<T>(0.0f);
  const T* row = w + static_cast<int64_t>(o) * g.k;
  if (kVector && o < g.o && k < g.k) {
    dst = load_pack<V>(row + k);
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) dst.v[j] = (o < g.o && k + j < g.k) ? row[k + j] : zero;
}

/// Where out[m, o] (and residual[m, o]) lies.
template <bool kNhwc>
__device__ __forceinline__ int64_t out_index(const IgemmGeom& g, int64_t m, int o) {
  if constexpr (kNhwc) {
    return m * g.o + o;
  } else {
    const int64_t plane = static_cast<int64_t>(g.oh) * g.ow;
    const int64_t n = m / plane;
    return (n * g.o + o) * plane + (m - n * plane);
  }
}

/// The epilogue of one output: the sum plus bias[o] and residual[at] (absent terms are not added,
/// so -0 stays -0, as in conv.cuh and the reference), activated, rounded once to T.
template <typename T, typename Act>
__device__ __forceinline__ T conv_finish(acc_t<T> sum, const Conv2dEpilogue<T>& e, int o,
                                         int64_t at, Act activation) {
  if (e.bias != nullptr) sum += to_acc(e.bias[o]);
  if (e.residual != nullptr) sum += to_acc(e.residual[at]);
  return from_acc<T>(activation(sum));
}

/// d += a * b for one m16n8k16 tile: a 4 registers, b 2, d 4 (fragments as PTX lays them out).
template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4],
                                          const uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

/// Four 8x8 tiles of 16-bit values from shared memory, in the mma fragment layout (sm_75+): lane l
/// gives the address of row l % 8 of tile l / 8 (16 aligned bytes); r[i] is tile i's fragment.
template <typename T>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const T* row) {
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

/// The fragment sum of mma_16816 on the FMA units, for GPUs without it (below sm_80):
/// `as`/`bs` point at element (row 0, k 0) of the 16x16 A and 8x16 W tiles in shared memory.
template <typename T, int kStride>
__device__ __forceinline__ void fma_16816(float (&d)[4], const T* as, const T* bs) {
  const int gid = (threadIdx.x & 31) >> 2, tig = threadIdx.x & 3;
  for (int r = 0; r < 4; ++r) {
    const int row = gid + (r >= 2 ? 8 : 0), col = tig * 2 + (r & 1);
    float s = d[r];
    for (int kk = 0; kk < 16; ++kk)
      s += to_float(as[row * kStride + kk]) * to_float(bs[col * kStride + kk]);
    d[r] = s;
  }
}

/// The end of an igemm block, given its kAcc accumulators per thread and `finish(i, sum)`, which
/// stores output i of the thread. With one K split (gridDim.z == 1) each thread finishes its own.
/// With several (sm_90: the launcher makes the z blocks of one tile a cluster), each block leaves
/// its partial sums in its shared memory (`smem`, at least kAcc * kThreads values), and block r of
/// the cluster adds accumulators i = r, r + splits, ... over the blocks in rank order through
/// distributed shared memory and finishes them: deterministic, no workspace, one kernel.
template <int kAcc, int kThreads, typename A, typename Finish>
__device__ __forceinline__ void igemm_finish(const A (&acc)[kAcc], void* smem, Finish finish) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (gridDim.z > 1) {
    // The cluster intrinsics themselves (what cooperative_groups' cluster_group calls): that
    // header cost every model.cu about 3 s of nvcc on two cores.
    A* partial = static_cast<A*>(smem);
#pragma unroll
    for (int i = 0; i < kAcc; ++i) partial[i * kThreads + threadIdx.x] = acc[i];
    auto cluster_sync = [] {
      __cluster_barrier_arrive();
      __cluster_barrier_wait();
    };
    auto rank_partial = [&](int rank) {
      return static_cast<const A*>(__cluster_map_shared_rank(partial, static_cast<unsigned>(rank)));
    };
    cluster_sync();
    const int splits = static_cast<int>(__clusterSizeInBlocks());
    for (int i = static_cast<int>(__clusterRelativeBlockRank()); i < kAcc; i += splits) {
      A sum = rank_partial(0)[i * kThreads + threadIdx.x];
      for (int r = 1; r < splits; ++r) sum += rank_partial(r)[i * kThreads + threadIdx.x];
      finish(i, sum);
    }
    cluster_sync();  // no block leaves while another still reads its shared memory
    return;
  }
#endif
  (void)smem;
#pragma unroll
  for (int i = 0; i < kAcc; ++i) finish(i, acc[i]);
}

/// The row stride (in floats) of a kN-wide tile of sums in shared memory (store_tile), padded so
/// that the fragments' pair writes spread over the banks.
template <int kN>
inline constexpr int kSumStride = kN + 4;

/// The epilogue of a block's kM x kN tile of sums, NHWC (m, o at m * O + o): the sums in shared
/// memory (`sums`, row stride kSumStride<kN>, written by every thread before a barrier), each
/// thread finishing 8 channels of one pixel at a time, so that consecutive threads read the
/// residual and write the output in consecutive 16-byte pieces (where O is a multiple of 8 and the
/// pointers 16-byte aligned; element by element otherwise). The same terms as conv_finish.
template <int kM, int kN, int kThreads, typename T, typename Act>
__device__ __forceinline__ void store_tile(const float* sums, int64_t m0, int o0,
                                           const IgemmGeom& g, const Conv2dEpilogue<T>& e, T* out,
                                           Act activation) {
  constexpr int kPerRow = kN / 8;
  const bool vector = g.o % 8 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0 &&
                      reinterpret_cast<uintptr_t>(e.residual) % 16 == 0;
  for (int q = static_cast<int>(threadIdx.x); q < kM * kPerRow; q += kThreads) {
    const int row = q / kPerRow, col = q % kPerRow * 8;
    const int64_t m = m0 + row;
    const int o = o0 + col;
    if (m >= g.m || o >= g.o) continue;
    const float* sum = sums + row * kSumStride<kN> + col;
    const int64_t at = m * g.o + o;
    if (vector && o + 8 <= g.o) {
      Pack<T, 8> residual, result;
      if (e.residual != nullptr) residual = load_pack<8>(e.residual + at);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        float v = sum[j];
        if (e.bias != nullptr) v += to_acc(e.bias[o + j]);
        if (e.residual != nullptr) v += to_acc(residual.v[j]);
        result.v[j] = from_acc<T>(activation(v));
      }
      store_pack(out + at, result);
    } else {
      for (int j = 0; j < 8 && o + j < g.o; ++j)
        out[at + j] = conv_finish<T>(sum[j], e, o + j, at + j, activation);
    }
  }
}

/// Launches `kernel` on m_tiles x o_tiles blocks of `threads` threads with `smem_bytes` of dynamic
/// shared memory, K split `splits` ways: the z blocks of a tile are one thread block cluster
/// (igemm_finish adds their sums).
template <typename... Params, typename... Args>
inline cudaError_t launch_tiles(void (*kernel)(Params...), int64_t m_tiles, int64_t o_tiles,
                                int splits, int threads, int smem_bytes, cudaStream_t stream,
                                Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(m_tiles), static_cast<unsigned>(o_tiles),
                        static_cast<unsigned>(splits));
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
  config.stream = stream;
  cudaLaunchAttribute cluster;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = static_cast<unsigned>(splits);
  config.attrs = &cluster;
  config.numAttrs = splits > 1 ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

/// How many ways to split K: enough blocks to give each SM one when the tiles alone leave most
/// idle, at most a cluster of 8, and at least 4 K steps per split. 1 (no split) before sm_90 or
/// when the kernel's binary was not built for it (clusters and distributed shared memory).
inline int igemm_splits(int64_t tiles, int steps, int binary_version) {
  int sms = 0, major = 0;
  if (!current_device_sms(sms, major)) return 1;
  if (major < 9 || 2 * tiles > sms) return 1;
  int splits = static_cast<int>(sms / tiles);
  splits = splits < 8 ? splits : 8;
  splits = splits < steps / 4 ? splits : steps / 4;
  return splits >= 2 && binary_version >= 90 ? splits : 1;
}

}  // namespace detail
}  // namespace inferno::kernels
