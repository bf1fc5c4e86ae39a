// Fused vs unfused row softmax in CUDA C.
//
// Unfused: five kernels, one per step (row max, subtract, exp, row sum,
// divide), each a pass over the matrix in memory: 5 reads + 3 writes.
// Fused: one block per row copies the row into shared memory once, does all
// five steps there, and writes the result once: 1 read + 1 write. Same
// arithmetic, a quarter of the memory traffic (see kernels/fused_common.py).
// Build and run:
//
//   nvcc -O3 -arch=native -o build/fused_cuda kernels/fused_cuda.cu
//   build/fused_cuda --rows 32768 --cols 8192
#include "cuda_common.cuh"

constexpr int THREADS = 256;

// Reduce one value per thread of the block to one value (max or sum) seen by all threads.
template <bool MAX>
__device__ float block_reduce(float v) {
  __shared__ float partial[THREADS / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    float other = __shfl_xor_sync(0xffffffff, v, offset);
    v = MAX ? fmaxf(v, other) : v + other;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = partial[0];
  for (int w = 1; w < THREADS / 32; ++w) v = MAX ? fmaxf(v, partial[w]) : v + partial[w];
  __syncthreads();
  return v;
}

// --- unfused: one kernel per step ---
template <bool MAX>
__global__ void row_reduce_kernel(const float* x, float* out, int cols) {  // one block per row
  const float* row = x + (size_t)blockIdx.x * cols;
  float v = MAX ? -INFINITY : 0.0f;
  for (int j = threadIdx.x; j < cols; j += THREADS) v = MAX ? fmaxf(v, row[j]) : v + row[j];
  v = block_reduce<MAX>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void subtract_kernel(const float* x, const float* m, float* t, int cols, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    t[i] = x[i] - m[i / cols];
}

__global__ void exp_kernel(float* t, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    t[i] = __expf(t[i]);
}

__global__ void divide_kernel(const float* t, const float* s, float* y, int cols, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    y[i] = t[i] / s[i / cols];
}

// --- fused: the row stays in shared memory ---
__global__ void softmax_fused_kernel(const float* x, float* y, int cols) {
  extern __shared__ float row[];
  const float* in = x + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < cols; j += THREADS) {
    row[j] = in[j];
    m = fmaxf(m, row[j]);
  }
  m = block_reduce<true>(m);
  float s = 0;
  for (int j = threadIdx.x; j < cols; j += THREADS) {
    row[j] = __expf(row[j] - m);
    s += row[j];
  }
  s = block_reduce<false>(s);
  float* out = y + (size_t)blockIdx.x * cols;
  for (int j = threadIdx.x; j < cols; j += THREADS) out[j] = row[j] / s;
}

int main(int argc, char** argv) {
  Options opt{argc, argv};
  int rows = (int)opt.positive("--rows", 32768), cols = (int)opt.positive("--cols", 8192);
  if (cols > 12288) {
    std::fprintf(stderr, "error: --cols must be at most 12288 (a row must fit in 48 KiB of shared memory)\n");
    return 2;
  }
  int repeat = (int)opt.positive("--repeat", 10), warmup = opt.warmup(2);
  size_t count = (size_t)rows * cols;

  std::vector<float> hx(count);
  unsigned state = 12345u;
  for (auto& v : hx) { state = state * 1664525u + 1013904223u; v = (state >> 8) * (8.0f / 16777216.0f) - 4.0f; }
  float *x, *t, *y, *m, *s;
  CUDA_CHECK(cudaMalloc(&x, count * 4));
  CUDA_CHECK(cudaMalloc(&t, count * 4));
  CUDA_CHECK(cudaMalloc(&y, count * 4));
  CUDA_CHECK(cudaMalloc(&m, rows * 4));
  CUDA_CHECK(cudaMalloc(&s, rows * 4));
  CUDA_CHECK(cudaMemcpy(x, hx.data(), count * 4, cudaMemcpyHostToDevice));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms * 8;

  auto unfused = [&] {
    row_reduce_kernel<true><<<rows, THREADS>>>(x, m, cols);
    subtract_kernel<<<grid, THREADS>>>(x, m, t, cols, count);
    exp_kernel<<<grid, THREADS>>>(t, count);
    row_reduce_kernel<false><<<rows, THREADS>>>(t, s, cols);
    divide_kernel<<<grid, THREADS>>>(t, s, y, cols, count);
  };
  auto fused = [&] { softmax_fused_kernel<<<rows, THREADS, cols * sizeof(float)>>>(x, y, cols); };
  double unfused_s = median_ms(unfused, repeat, warmup) / 1e3;
  double fused_s = median_ms(fused, repeat, warmup) / 1e3;

  // Check both versions against a float64 softmax on the host.
  double worst = 0;
  std::vector<float> hy(count);
  std::vector<double> ref(cols);
  for (int version = 0; version < 2; ++version) {
    CUDA_CHECK(cudaMemset(y, 0xFF, count * 4));
    if (version == 0) unfused(); else fused();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(hy.data(), y, count * 4, cudaMemcpyDeviceToHost));
    RelativeError err;
    for (int r = 0; r < rows; ++r) {
      const float* row = &hx[(size_t)r * cols];
      double mx = *std::max_element(row, row + cols), sum = 0;
      for (int j = 0; j < cols; ++j) sum += (ref[j] = std::exp((double)row[j] - mx));
      for (int j = 0; j < cols; ++j) err.add(hy[(size_t)r * cols + j], ref[j] / sum);
    }
    double e = err.value();
    worst = (e < 0 || worst < 0) ? -1 : std::max(worst, e);
  }

  double matrix = (double)count * 4, fused_bytes = 2 * matrix, unfused_bytes = 8 * matrix;
  char params[128], details[512];
  std::snprintf(params, sizeof params, "\"op\": \"softmax\", \"rows\": %d, \"cols\": %d, \"dtype\": \"fp32\"", rows, cols);
  std::snprintf(details, sizeof details,
                "\"unfused_s\": %.6e, \"fused_s\": %.6e, \"unfused_bytes\": %.0f, \"fused_bytes\": %.0f, "
                "\"unfused_gb_s\": %.6g, \"fused_gb_s\": %.6g, \"speedup\": %.4g, \"traffic_saved_percent\": 75",
                unfused_s, fused_s, unfused_bytes, fused_bytes, unfused_bytes / unfused_s / 1e9,
                fused_bytes / fused_s / 1e9, unfused_s / fused_s);
  int rc = report(opt.flag("--json"), "fused", device_name(), params, fused_bytes / fused_s / 1e9, "gb_s", worst, 1e-5,
                  details);
  for (float* p : {x, t, y, m, s}) CUDA_CHECK(cudaFree(p));
  return rc;
}
