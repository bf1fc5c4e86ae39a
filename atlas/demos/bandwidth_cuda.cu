// Memory bandwidth in CUDA C: STREAM copy and triad.
//
//   copy:  c[i] = a[i]              2 x 4 bytes per element
//   triad: a[i] = b[i] + s * c[i]   3 x 4 bytes per element
//
// Each thread moves float4 values (16-byte loads and stores, coalesced
// across the warp) in a grid-stride loop. Bytes are counted as STREAM
// counts them. Build and run:
//
//   nvcc -O3 -arch=native -o build/bandwidth_cuda atlas/demos/bandwidth_cuda.cu
//   build/bandwidth_cuda --kernel triad --size 268435456
#include "cuda_common.cuh"

__global__ void copy_kernel(const float4* __restrict__ a, float4* __restrict__ c, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    c[i] = a[i];
}

__global__ void triad_kernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                             float s, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

int main(int argc, char** argv) {
  Options opt{argc, argv};
  std::string kernel = opt.get("--kernel", "triad");
  if (kernel != "copy" && kernel != "triad") {
    std::fprintf(stderr, "error: --kernel must be copy or triad, got '%s'\n", kernel.c_str());
    return 2;
  }
  size_t n = opt.positive("--size", 1LL << 28);
  n -= n % 4;  // whole float4 values
  if (n == 0) { std::fprintf(stderr, "error: --size must be at least 4\n"); return 2; }
  int repeat = (int)opt.positive("--repeat", 10), warmup = opt.warmup(2);
  const float s = 3.0f;

  std::vector<float> ha(n), hb(n), hc(n);
  unsigned state = 12345u;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u; ha[i] = (state >> 8) * (1.0f / 16777216.0f);
    state = state * 1664525u + 1013904223u; hb[i] = (state >> 8) * (1.0f / 16777216.0f);
    state = state * 1664525u + 1013904223u; hc[i] = (state >> 8) * (1.0f / 16777216.0f);
  }
  float *a, *b, *c;
  CUDA_CHECK(cudaMalloc(&a, n * 4));
  CUDA_CHECK(cudaMalloc(&b, n * 4));
  CUDA_CHECK(cudaMalloc(&c, n * 4));
  CUDA_CHECK(cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(c, hc.data(), n * 4, cudaMemcpyHostToDevice));

  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 256, blocks = sms * 8;
  size_t n4 = n / 4;
  auto run = [&] {
    if (kernel == "copy") copy_kernel<<<blocks, threads>>>((const float4*)a, (float4*)c, n4);
    else triad_kernel<<<blocks, threads>>>((float4*)a, (const float4*)b, (const float4*)c, s, n4);
  };
  float ms = median_ms(run, repeat, warmup);
  double moved = (kernel == "copy" ? 2.0 : 3.0) * n * 4;

  // Check: poison the output, run once more, compare on the host.
  float* out = kernel == "copy" ? c : a;
  CUDA_CHECK(cudaMemset(out, 0xFF, n * 4));  // NaN bit pattern
  run();
  CUDA_CHECK_LAUNCH();
  std::vector<float> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
  RelativeError err;
  for (size_t i = 0; i < n; ++i) err.add(got[i], kernel == "copy" ? ha[i] : (double)hb[i] + (double)s * hc[i]);
  double error = err.value();

  char params[128], details[160];
  std::snprintf(params, sizeof params, "\"kernel\": \"%s\", \"size\": %zu, \"dtype\": \"fp32\"", kernel.c_str(), n);
  std::snprintf(details, sizeof details, "\"bytes_per_run\": %.0f, \"median_s\": %.6e", moved, ms / 1e3);
  int rc = report(opt.flag("--json"), "bandwidth", device_name(), params, moved / (ms / 1e3) / 1e9, "gb_s", error,
                  1e-6, details);
  CUDA_CHECK(cudaFree(a));
  CUDA_CHECK(cudaFree(b));
  CUDA_CHECK(cudaFree(c));
  return rc;
}
