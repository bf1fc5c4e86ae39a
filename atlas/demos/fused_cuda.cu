// Fused vs unfused row softmax or layer norm in CUDA C (--op softmax|layernorm).
//
// Unfused: one kernel per step of the tables in atlas/demos/fused_common.py, each
// a pass over the matrix in memory. Softmax: row max, subtract, exp, row sum,
// divide (5 reads + 3 writes). Layer norm: row mean, subtract, row mean of
// squares, normalize, scale by gamma, shift by beta (6 reads + 4 writes).
// Fused: one block per row copies the row into shared memory once, does all
// the steps there, and writes the result once: 1 read + 1 write. Same
// arithmetic, a quarter (softmax) or a fifth (layer norm) of the traffic.
// Build and run:
//
//   nvcc -O3 -arch=native -o build/fused_cuda atlas/demos/fused_cuda.cu
//   build/fused_cuda --rows 32768 --cols 8192
//   build/fused_cuda --op layernorm --rows 32768 --cols 8192
#include "cuda_common.cuh"

constexpr int THREADS = 256;
constexpr float EPS = 1e-5f;  // layer norm's epsilon

// Passes over the matrix, as counted in atlas/demos/fused_common.py.
struct Op {
  const char* name;
  int unfused_passes, fused_passes;
};
constexpr Op OPS[] = {{"softmax", 8, 2}, {"layernorm", 10, 2}};

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

// Mean of each row (SQUARE: of its squares), one block per row.
template <bool SQUARE>
__global__ void row_mean_kernel(const float* x, float* out, int cols) {
  const float* row = x + (size_t)blockIdx.x * cols;
  float v = 0;
  for (int j = threadIdx.x; j < cols; j += THREADS) v += SQUARE ? row[j] * row[j] : row[j];
  v = block_reduce<false>(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v / cols;
}

__global__ void rstd_kernel(float* v, int rows) {  // R values: v = 1 / sqrt(v + eps)
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) v[r] = rsqrtf(v[r] + EPS);
}

__global__ void scale_rows_kernel(float* t, const float* rstd, int cols, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    t[i] *= rstd[i / cols];
}

__global__ void scale_cols_kernel(float* t, const float* gamma, int cols, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    t[i] *= gamma[i % cols];
}

__global__ void shift_cols_kernel(const float* t, const float* beta, float* y, int cols, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    y[i] = t[i] + beta[i % cols];
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

__global__ void layernorm_fused_kernel(const float* x, const float* gamma, const float* beta, float* y, int cols) {
  extern __shared__ float row[];
  const float* in = x + (size_t)blockIdx.x * cols;
  float sum = 0;
  for (int j = threadIdx.x; j < cols; j += THREADS) {
    row[j] = in[j];
    sum += row[j];
  }
  float mean = block_reduce<false>(sum) / cols;
  float squares = 0;
  for (int j = threadIdx.x; j < cols; j += THREADS) {
    row[j] -= mean;
    squares += row[j] * row[j];
  }
  float rstd = rsqrtf(block_reduce<false>(squares) / cols + EPS);
  float* out = y + (size_t)blockIdx.x * cols;
  for (int j = threadIdx.x; j < cols; j += THREADS) out[j] = row[j] * rstd * gamma[j] + beta[j];
}

// --- float64 references on the host, one row at a time ---
void softmax_reference(const float* x, int cols, double* out) {
  double mx = *std::max_element(x, x + cols), sum = 0;
  for (int j = 0; j < cols; ++j) sum += (out[j] = std::exp((double)x[j] - mx));
  for (int j = 0; j < cols; ++j) out[j] /= sum;
}

void layernorm_reference(const float* x, const float* gamma, const float* beta, int cols, double* out) {
  double mean = 0, var = 0;
  for (int j = 0; j < cols; ++j) mean += x[j];
  mean /= cols;
  for (int j = 0; j < cols; ++j) var += (x[j] - mean) * (x[j] - mean);
  double rstd = 1 / std::sqrt(var / cols + (double)EPS);
  for (int j = 0; j < cols; ++j) out[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];
}

// Uniform values in [lo, lo + width) from a fixed linear congruential sequence.
void fill(std::vector<float>& v, unsigned seed, float lo, float width) {
  for (auto& e : v) { seed = seed * 1664525u + 1013904223u; e = lo + (seed >> 8) * (width / 16777216.0f); }
}

int main(int argc, char** argv) {
  Options opt{argc, argv};
  const char* op_name = opt.get("--op", "softmax");
  const Op* op = nullptr;
  for (const Op& o : OPS)
    if (std::strcmp(o.name, op_name) == 0) op = &o;
  if (!op) {
    std::fprintf(stderr, "error: --op must be softmax or layernorm, got '%s'\n", op_name);
    return 2;
  }
  const bool layernorm = std::strcmp(op->name, "layernorm") == 0;
  int rows = (int)opt.positive("--rows", 32768), cols = (int)opt.positive("--cols", 8192);
  if (cols > 12288) {
    std::fprintf(stderr, "error: --cols must be at most 12288 (a row must fit in 48 KiB of shared memory)\n");
    return 2;
  }
  int repeat = (int)opt.positive("--repeat", 10), warmup = opt.warmup(2);
  size_t count = (size_t)rows * cols;

  std::vector<float> hx(count), hgamma(cols), hbeta(cols);
  fill(hx, 12345u, -4.0f, 8.0f);
  fill(hgamma, 777u, 0.9f, 0.2f);
  fill(hbeta, 999u, -0.1f, 0.2f);
  float *x, *t, *y, *m, *s, *gamma, *beta;
  CUDA_CHECK(cudaMalloc(&x, count * 4));
  CUDA_CHECK(cudaMalloc(&t, count * 4));
  CUDA_CHECK(cudaMalloc(&y, count * 4));
  CUDA_CHECK(cudaMalloc(&m, rows * 4));
  CUDA_CHECK(cudaMalloc(&s, rows * 4));
  CUDA_CHECK(cudaMalloc(&gamma, cols * 4));
  CUDA_CHECK(cudaMalloc(&beta, cols * 4));
  CUDA_CHECK(cudaMemcpy(x, hx.data(), count * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(gamma, hgamma.data(), cols * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(beta, hbeta.data(), cols * 4, cudaMemcpyHostToDevice));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms * 8;

  auto softmax_unfused = [&] {
    row_reduce_kernel<true><<<rows, THREADS>>>(x, m, cols);
    subtract_kernel<<<grid, THREADS>>>(x, m, t, cols, count);
    exp_kernel<<<grid, THREADS>>>(t, count);
    row_reduce_kernel<false><<<rows, THREADS>>>(t, s, cols);
    divide_kernel<<<grid, THREADS>>>(t, s, y, cols, count);
  };
  auto layernorm_unfused = [&] {
    row_mean_kernel<false><<<rows, THREADS>>>(x, m, cols);
    subtract_kernel<<<grid, THREADS>>>(x, m, t, cols, count);
    row_mean_kernel<true><<<rows, THREADS>>>(t, s, cols);
    rstd_kernel<<<(rows + THREADS - 1) / THREADS, THREADS>>>(s, rows);
    scale_rows_kernel<<<grid, THREADS>>>(t, s, cols, count);
    scale_cols_kernel<<<grid, THREADS>>>(t, gamma, cols, count);
    shift_cols_kernel<<<grid, THREADS>>>(t, beta, y, cols, count);
  };
  auto unfused = [&] { layernorm ? layernorm_unfused() : softmax_unfused(); };
  auto fused = [&] {
    if (layernorm)
      layernorm_fused_kernel<<<rows, THREADS, cols * sizeof(float)>>>(x, gamma, beta, y, cols);
    else
      softmax_fused_kernel<<<rows, THREADS, cols * sizeof(float)>>>(x, y, cols);
  };
  double unfused_s = median_ms(unfused, repeat, warmup) / 1e3;
  double fused_s = median_ms(fused, repeat, warmup) / 1e3;

  // Check both versions against the float64 operation on the host.
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
      if (layernorm) layernorm_reference(row, hgamma.data(), hbeta.data(), cols, ref.data());
      else softmax_reference(row, cols, ref.data());
      for (int j = 0; j < cols; ++j) err.add(hy[(size_t)r * cols + j], ref[j]);
    }
    double e = err.value();
    worst = (e < 0 || worst < 0) ? -1 : std::max(worst, e);
  }

  double matrix = (double)count * 4;
  double fused_bytes = op->fused_passes * matrix, unfused_bytes = op->unfused_passes * matrix;
  char params[128], details[512];
  std::snprintf(params, sizeof params, "\"op\": \"%s\", \"rows\": %d, \"cols\": %d, \"dtype\": \"fp32\"", op->name, rows, cols);
  std::snprintf(details, sizeof details,
                "\"unfused_s\": %.6e, \"fused_s\": %.6e, \"unfused_bytes\": %.0f, \"fused_bytes\": %.0f, "
                "\"unfused_gb_s\": %.6g, \"fused_gb_s\": %.6g, \"speedup\": %.4g, \"traffic_saved_percent\": %.6g",
                unfused_s, fused_s, unfused_bytes, fused_bytes, unfused_bytes / unfused_s / 1e9,
                fused_bytes / fused_s / 1e9, unfused_s / fused_s,
                100.0 * (1.0 - (double)op->fused_passes / op->unfused_passes));
  int rc = report(opt.flag("--json"), "fused", device_name(), params, fused_bytes / fused_s / 1e9, "gb_s", worst, 1e-5,
                  details);
  for (float* p : {x, t, y, m, s, gamma, beta}) CUDA_CHECK(cudaFree(p));
  return rc;
}
