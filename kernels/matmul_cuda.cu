// Matrix multiplication in CUDA C, written out by hand: C = A x B, N x N x N,
// 2 * N^3 operations, accumulated in FP32.
//
//   --precision fp32   tiled kernel on the CUDA cores (FFMA): each block
//                      computes a 64 x 64 tile of C, each thread 4 x 4 values
//                      from A and B tiles staged in shared memory.
//   --precision fp16   tensor cores through WMMA (nvcuda::wmma, 16 x 16 x 16
//   --precision bf16   fragments): each block of 8 warps computes a 128 x 128
//                      tile, each warp 64 x 32 of it.
//
// No double buffering, no asynchronous copies, no Hopper wgmma: libraries
// such as cuBLAS and CUTLASS add those and get much closer to the peak. The
// gap is the point of the demo. N must be a multiple of 128. Build and run:
//
//   nvcc -O3 -arch=native -o build/matmul_cuda kernels/matmul_cuda.cu
//   build/matmul_cuda --precision bf16 --size 8192
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

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

template <typename T>
T from_float(float x);
template <>
float from_float<float>(float x) { return x; }
template <>
__half from_float<__half>(float x) { return __float2half(x); }
template <>
__nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16(x); }
inline float to_float(float x) { return x; }
inline float to_float(__half x) { return __half2float(x); }
inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

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
  CUDA_CHECK(cudaMemcpy(b, hb.data(), count * sizeof(T), cudaMemcpyHostToDevice));

  auto run = [&] {
    if constexpr (std::is_same<T, float>::value)
      sgemm_kernel<<<dim3(n / 64, n / 64), 256>>>(a, b, c, n);
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
  if (precision == "bf16") return run_demo<__nv_bfloat16>(opt, "bf16", n, 1e-3);
  std::fprintf(stderr, "error: --precision must be fp32, fp16 or bf16, got '%s'\n", precision.c_str());
  return 2;
}
