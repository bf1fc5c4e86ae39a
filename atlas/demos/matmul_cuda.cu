// Matrix multiplication in CUDA C, written out by hand: C = A x B, N x N x N,
// 2 * N^3 operations, accumulated in FP32.
//
//   --precision fp32   tiled kernel on the CUDA cores (FFMA): each block
//                      computes a 64 x 64 tile of C, each thread 4 x 4 values
//                      from A and B tiles staged in shared memory.
//   --precision fp16   tensor cores through WMMA (nvcuda::wmma, 16 x 16 x 16
//   --precision bf16   fragments): each block of 8 warps computes a 128 x 128
//                      tile, each warp 64 x 32 of it. BF16 needs compute
//                      capability 8.0 or newer, FP16 runs from Turing (7.5) on.
//   --precision fp8    FP8 (E4M3) tensor cores through the PTX instruction
//                      mma.sync m16n8k32 (compute capability 8.9 and newer;
//                      WMMA has no FP8): same 128 x 128 block tile, operands
//                      loaded into registers by hand, B stored transposed
//                      (N x K) so that four consecutive K values are one
//                      32-bit load, as the instruction's "col" layout wants.
//
// No double buffering, no asynchronous copies, no Hopper wgmma: libraries
// such as cuBLAS and CUTLASS add those and get much closer to the peak. The
// gap is the point of the demo. N must be a multiple of 128. Build and run:
//
//   nvcc -O3 -arch=native -o build/matmul_cuda atlas/demos/matmul_cuda.cu
//   build/matmul_cuda --precision bf16 --size 8192
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <mma.h>

#include <cstdint>
#include <type_traits>

#include "cuda_common.cuh"

using namespace nvcuda;

constexpr int TILE = 128, BK = 32;  // tensor-core kernel: block tile and K step

__global__ void sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
  __shared__ float As[16][64];  // A tile, transposed: As[k][row]
  __shared__ float Bs[16][64];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += 16) {
    for (int i = 0; i < 4; ++i) {
      int idx = threadIdx.x + i * 256;
      As[idx % 16][idx / 16] = A[(size_t)(row0 + idx / 16) * n + k0 + idx % 16];
      Bs[idx / 64][idx % 64] = B[(size_t)(k0 + idx / 64) * n + col0 + idx % 64];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      float a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i];
      for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(size_t)(row0 + ty + 16 * i) * n + col0 + tx + 16 * j] = acc[i][j];
}

template <typename T>
__global__ void wmma_kernel(const T* __restrict__ A, const T* __restrict__ B, float* __restrict__ C, int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    __trap();  // no BF16 tensor cores before compute capability 8.0; main() refuses such GPUs first
  } else
#endif
  {
    __shared__ __align__(16) T As[TILE][BK];
    __shared__ __align__(16) T Bs[BK][TILE];
    const int warp = threadIdx.x / 32;
    const int warp_row = (warp / 4) * 64, warp_col = (warp % 4) * 32;  // 2 x 4 warps, 64 x 32 each
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < n; k0 += BK) {
      // 128 x 32 values of A and 32 x 128 of B, 8 values (16 bytes) per load, 2 loads each per thread.
      for (int i = 0; i < 2; ++i) {
        int idx = threadIdx.x + i * 256;
        int ar = idx / (BK / 8), ac = (idx % (BK / 8)) * 8;
        *(uint4*)&As[ar][ac] = *(const uint4*)&A[(size_t)(row0 + ar) * n + k0 + ac];
        int br = idx / (TILE / 8), bc = (idx % (TILE / 8)) * 8;
        *(uint4*)&Bs[br][bc] = *(const uint4*)&B[(size_t)(k0 + br) * n + col0 + bc];
      }
      __syncthreads();
      for (int k = 0; k < BK; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[4];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b[2];
        for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[warp_row + 16 * i][k], BK);
        for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[k][warp_col + 16 * j], TILE);
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
      }
      __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(&C[(size_t)(row0 + warp_row + 16 * i) * n + col0 + warp_col + 16 * j], acc[i][j], n,
                                wmma::mem_row_major);
  }
}

// FP8 block tile: 128 x 128 of C, K in steps of 64 bytes. Rows in shared memory are padded
// to 80 bytes (20 words), so the 8 rows x 4 words a warp reads per fragment hit 32 banks.
constexpr int BK8 = 64, ROW8 = BK8 + 16;

// D += A x B for one 16 x 8 x 32 tile. Per lane (g = lane / 4, t = lane % 4), PTX ISA
// "mma.m16n8k32" fragments: a[0] = A[g][4t..4t+3], a[1] = A[g+8][4t..], a[2] = A[g][16+4t..],
// a[3] = A[g+8][16+4t..]; b[0] = B[4t..4t+3][g], b[1] = B[16+4t..][g]; d[0..1] = D[g][2t..2t+1],
// d[2..3] = D[g+8][2t..2t+1]. Byte j of a register is element j.
__device__ __forceinline__ void mma_fp8(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();  // no FP8 tensor cores before compute capability 8.9; main() refuses such GPUs first
#endif
}

// C = A x B with A row-major (N x K) and Bt = B transposed, row-major (N x K), both FP8 E4M3.
__global__ void fp8_kernel(const uint8_t* __restrict__ A, const uint8_t* __restrict__ Bt, float* __restrict__ C,
                           int n) {
  __shared__ __align__(16) uint8_t As[TILE][ROW8];
  __shared__ __align__(16) uint8_t Bs[TILE][ROW8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int warp_row = (warp / 4) * 64, warp_col = (warp % 4) * 32;  // 2 x 4 warps, 64 x 32 each
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc[4][4][4] = {};  // [16-row tile][8-column tile][fragment]
  for (int k0 = 0; k0 < n; k0 += BK8) {
    // 128 rows x 64 bytes of A and of Bt: 16 bytes per load, 2 loads each per thread.
    for (int i = 0; i < 2; ++i) {
      int idx = threadIdx.x + i * 256, r = idx / 4, c = (idx % 4) * 16;
      *(uint4*)&As[r][c] = *(const uint4*)&A[(size_t)(row0 + r) * n + k0 + c];
      *(uint4*)&Bs[r][c] = *(const uint4*)&Bt[(size_t)(col0 + r) * n + k0 + c];
    }
    __syncthreads();
    for (int k = 0; k < BK8; k += 32) {
      uint32_t a[4][4], b[4][2];
      for (int i = 0; i < 4; ++i) {
        const int r = warp_row + 16 * i + g;
        a[i][0] = *(const uint32_t*)&As[r][k + 4 * t];
        a[i][1] = *(const uint32_t*)&As[r + 8][k + 4 * t];
        a[i][2] = *(const uint32_t*)&As[r][k + 16 + 4 * t];
        a[i][3] = *(const uint32_t*)&As[r + 8][k + 16 + 4 * t];
      }
      for (int j = 0; j < 4; ++j) {
        const int c = warp_col + 8 * j + g;
        b[j][0] = *(const uint32_t*)&Bs[c][k + 4 * t];
        b[j][1] = *(const uint32_t*)&Bs[c][k + 16 + 4 * t];
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) mma_fp8(acc[i][j], a[i], b[j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const size_t row = row0 + warp_row + 16 * i + g, col = col0 + warp_col + 8 * j + 2 * t;
      *(float2*)&C[row * n + col] = make_float2(acc[i][j][0], acc[i][j][1]);
      *(float2*)&C[(row + 8) * n + col] = make_float2(acc[i][j][2], acc[i][j][3]);
    }
}

template <typename T>
T from_float(float x);
template <>
float from_float<float>(float x) { return x; }
template <>
__half from_float<__half>(float x) { return __float2half(x); }
template <>
__nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
template <>
__nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float x) { return __nv_fp8_e4m3(x); }  // round to nearest, saturate
inline float to_float(float x) { return x; }
inline float to_float(__half x) { return __half2float(x); }
inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
inline float to_float(__nv_fp8_e4m3 x) { return float(x); }

template <typename T>
int run_demo(const Options& opt, const char* precision, int n, double tolerance) {
  size_t count = (size_t)n * n;
  std::vector<T> ha(count), hb(count);
  unsigned state = 12345u;
  auto uniform = [&] {  // in [-1, 1)
    state = state * 1664525u + 1013904223u;
    return (state >> 8) * (2.0f / 16777216.0f) - 1.0f;
  };
  for (size_t i = 0; i < count; ++i) ha[i] = from_float<T>(uniform());
  for (size_t i = 0; i < count; ++i) hb[i] = from_float<T>(uniform());
  T *a, *b;
  float* c;
  CUDA_CHECK(cudaMalloc(&a, count * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&b, count * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&c, count * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(a, ha.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  if constexpr (std::is_same<T, __nv_fp8_e4m3>::value) {  // the FP8 kernel reads B transposed
    std::vector<T> hbt(count);
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j) hbt[(size_t)j * n + k] = hb[(size_t)k * n + j];
    CUDA_CHECK(cudaMemcpy(b, hbt.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  } else {
    CUDA_CHECK(cudaMemcpy(b, hb.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  }

  auto run = [&] {
    if constexpr (std::is_same<T, float>::value)
      sgemm_kernel<<<dim3(n / 64, n / 64), 256>>>(a, b, c, n);
    else if constexpr (std::is_same<T, __nv_fp8_e4m3>::value)
      fp8_kernel<<<dim3(n / TILE, n / TILE), 256>>>((const uint8_t*)a, (const uint8_t*)b, c, n);
    else
      wmma_kernel<T><<<dim3(n / TILE, n / TILE), 256>>>(a, b, c, n);
  };
  float ms = median_ms(run, (int)opt.positive("--repeat", 10), opt.warmup(2));

  CUDA_CHECK(cudaMemset(c, 0xFF, count * sizeof(float)));  // poison with NaN
  run();
  CUDA_CHECK_LAUNCH();
  std::vector<float> hc(count);
  CUDA_CHECK(cudaMemcpy(hc.data(), c, count * sizeof(float), cudaMemcpyDeviceToHost));
  // Check 16 rows spread over C against float64 products of the same rounded inputs.
  RelativeError err;
  std::vector<double> ref(n);
  for (int s = 0; s < 16; ++s) {
    int row = (int)((s * 2654435761u) % (unsigned)n);
    std::fill(ref.begin(), ref.end(), 0.0);
    for (int k = 0; k < n; ++k) {
      double x = to_float(ha[(size_t)row * n + k]);
      for (int j = 0; j < n; ++j) ref[j] += x * to_float(hb[(size_t)k * n + j]);
    }
    for (int j = 0; j < n; ++j) err.add(hc[(size_t)row * n + j], ref[j]);
  }

  double seconds = ms / 1e3, flops = 2.0 * n * n * (double)n;
  char params[96], details[128];
  std::snprintf(params, sizeof params, "\"precision\": \"%s\", \"size\": %d", precision, n);
  std::snprintf(details, sizeof details, "\"flops_per_run\": %.0f, \"median_s\": %.6e", flops, seconds);
  int rc = report(opt.flag("--json"), "matmul", device_name(), params, flops / seconds / 1e12, "tflops", err.value(),
                  tolerance, details);
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(c));
  return rc;
}

// True if this GPU has compute capability `needed` (89 = 8.9) or newer; otherwise says so.
static bool has_capability(int needed, const char* precision, const char* generations) {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major * 10 + minor >= needed) return true;
  std::fprintf(stderr, "error: %s needs tensor cores of compute capability %d.%d or newer (%s); %s has %d.%d\n",
               precision, needed / 10, needed % 10, generations, device_name().c_str(), major, minor);
  return false;
}

int main(int argc, char** argv) {
  Options opt{argc, argv};
  std::string precision = opt.get("--precision", "bf16");
  int n = (int)opt.positive("--size", 8192);
  if (n % TILE != 0) {
    std::fprintf(stderr, "error: --size must be a multiple of %d, got %d\n", TILE, n);
    return 2;
  }
  if (precision == "fp32") return run_demo<float>(opt, "fp32", n, 1e-4);
  if (precision == "fp16") return run_demo<__half>(opt, "fp16", n, 1e-3);
  if (precision == "bf16") {
    if (!has_capability(80, "bf16", "Ampere and later")) return 3;
    return run_demo<__nv_bfloat16>(opt, "bf16", n, 1e-3);
  }
  if (precision == "fp8") {
    if (!has_capability(89, "fp8", "Ada, Hopper, Blackwell")) return 3;
    // The inputs are exact in FP8, so the only error is the sum; the tensor cores may add with fewer
    // bits than FP32 (DeepSeek-V3 report, section 3.3, for Hopper), hence the wider tolerance.
    return run_demo<__nv_fp8_e4m3>(opt, "fp8", n, 5e-2);
  }
  std::fprintf(stderr, "error: --precision must be fp32, fp16, bf16 or fp8, got '%s'\n", precision.c_str());
  return 2;
}
