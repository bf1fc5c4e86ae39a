// Arithmetic-intensity sweep in CUDA C: trace the roofline.
//
// Each float32 element is read once, put through FMAS steps of
// y = y * a + b (one fused multiply-add, 2 operations) and written once:
// 8 bytes and 2 * FMAS operations, intensity FMAS / 4 FLOP/byte. Each
// thread handles a float4, so four independent chains hide the FMA latency.
// Below the ridge point (peak / bandwidth) the kernel is memory-bound and
// its time barely changes with FMAS; above it, time grows with FMAS and the
// achieved TFLOP/s approaches the FP32 vector peak. Build and run:
//
//   nvcc -O3 -arch=native -o build/intensity_cuda atlas/demos/intensity_cuda.cu
//   build/intensity_cuda --size 268435456 --fmas 1,4,16,64,256
#include "cuda_common.cuh"

constexpr float A = 0.999f, B = 0.001f;  // as in atlas/demos/intensity_common.py

__global__ void fma_chain_kernel(const float4* __restrict__ x, float4* __restrict__ y, size_t n4, int fmas) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
#pragma unroll 16
    for (int k = 0; k < fmas; ++k) {
      v.x = fmaf(v.x, A, B);
      v.y = fmaf(v.y, A, B);
      v.z = fmaf(v.z, A, B);
      v.w = fmaf(v.w, A, B);
    }
    y[i] = v;
  }
}

int main(int argc, char** argv) {
  Options opt{argc, argv};
  size_t n = opt.positive("--size", 1LL << 28);
  n -= n % 4;
  if (n == 0) { std::fprintf(stderr, "error: --size must be at least 4\n"); return 2; }
  std::vector<int> sweep;
  for (const char* p = opt.get("--fmas", "1,2,4,8,16,32,64,128,256,512"); *p;) {
    char* end = nullptr;
    long v = std::strtol(p, &end, 10);
    if (end == p || v < 1 || (*end && *end != ',')) {
      std::fprintf(stderr, "error: --fmas must be comma-separated positive integers\n");
      return 2;
    }
    sweep.push_back((int)v);
    p = *end ? end + 1 : end;
  }
  int repeat = (int)opt.positive("--repeat", 10), warmup = opt.warmup(2);

  std::vector<float> hx(n);
  unsigned state = 12345u;
  for (auto& v : hx) { state = state * 1664525u + 1013904223u; v = (state >> 8) * (2.0f / 16777216.0f) - 1.0f; }
  float *x, *y;
  CUDA_CHECK(cudaMalloc(&x, n * 4));
  CUDA_CHECK(cudaMalloc(&y, n * 4));
  CUDA_CHECK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  std::string points;
  double best = 0, worst_error = 0, tolerance = 0;
  std::vector<float> hy(n);
  for (int fmas : sweep) {
    auto run = [&] { fma_chain_kernel<<<sms * 8, 256>>>((const float4*)x, (float4*)y, n / 4, fmas); };
    double seconds = median_ms(run, repeat, warmup) / 1e3;
    double tflops = 2.0 * fmas * n / seconds / 1e12, gbs = 8.0 * n / seconds / 1e9;
    best = std::max(best, tflops);
    char point[192];
    std::snprintf(point, sizeof point,
                  "%s{\"fmas\": %d, \"intensity\": %g, \"seconds\": %.6e, \"achieved_tflops\": %.6g, \"achieved_gb_s\": %.6g}",
                  points.empty() ? "" : ", ", fmas, fmas / 4.0, seconds, tflops, gbs);
    points += point;

    CUDA_CHECK(cudaMemset(y, 0xFF, n * 4));
    run();
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
    double an = std::pow((double)A, fmas), offset = (double)B * (1 - an) / (1 - (double)A);
    RelativeError err;
    for (size_t i = 0; i < n; ++i) err.add(hy[i], an * hx[i] + offset);
    double e = err.value();
    worst_error = (e < 0 || worst_error < 0) ? -1 : std::max(worst_error, e);
    tolerance = std::max(1e-6, 4e-7 * fmas);  // as in atlas/demos/intensity_common.py
  }

  std::string params = "\"precision\": \"fp32\", \"size\": " + std::to_string(n) + ", \"fmas\": [";
  for (size_t i = 0; i < sweep.size(); ++i) params += (i ? ", " : "") + std::to_string(sweep[i]);
  params += "]";
  int rc = report(opt.flag("--json"), "intensity", device_name(), params, best, "tflops", worst_error, tolerance,
                  "\"points\": [" + points + "]");
  CUDA_CHECK(cudaFree(x));
  CUDA_CHECK(cudaFree(y));
  return rc;
}
