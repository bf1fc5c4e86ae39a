// Shared by the CUDA C demos: error checks, options, timing and the JSON line.
//
// Each demo prints a short readable result, or with --json one JSON object
// with the achieved figure (GB/s = 1e9 bytes/s, or TFLOP/s = 1e12 operations/s)
// and its check. C has no YAML parser: `python -m atlas.demos run DEMO cuda` builds
// the demo with nvcc, runs it and adds the data-set device and its peak.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "error: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(err_ == cudaErrorNoDevice || err_ == cudaErrorInsufficientDriver ? 3 : 1); \
    }                                                                                 \
  } while (0)

// Check the launch itself, then wait for the kernel and check how it ended.
#define CUDA_CHECK_LAUNCH()                   \
  do {                                        \
    CUDA_CHECK(cudaGetLastError());           \
    CUDA_CHECK(cudaDeviceSynchronize());      \
  } while (0)

struct Options {
  int argc;
  char** argv;
  const char* get(const char* name, const char* fallback) const {
    for (int i = 1; i + 1 < argc; ++i)
      if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    return fallback;
  }
  bool flag(const char* name) const {
    for (int i = 1; i < argc; ++i)
      if (std::strcmp(argv[i], name) == 0) return true;
    return false;
  }
  long long positive(const char* name, long long fallback) const {
    const char* text = get(name, nullptr);
    if (!text) return fallback;
    char* end = nullptr;
    long long value = std::strtoll(text, &end, 10);
    if (*end != '\0' || value < 1) {
      std::fprintf(stderr, "error: %s must be a positive integer, got '%s'\n", name, text);
      std::exit(2);
    }
    return value;
  }
  int warmup(int fallback) const {  // untimed runs: zero or more
    const char* text = get("--warmup", nullptr);
    if (!text) return fallback;
    char* end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 0) {
      std::fprintf(stderr, "error: --warmup must not be negative, got '%s'\n", text);
      std::exit(2);
    }
    return (int)value;
  }
};

inline std::string device_name() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

// Median milliseconds of `repeat` timed calls after `warmup` untimed ones, timed with CUDA events.
template <typename F>
float median_ms(F&& run, int repeat, int warmup) {
  for (int i = 0; i < warmup; ++i) run();
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < repeat; ++i) {
    CUDA_CHECK(cudaEventRecord(start));
    run();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  return n % 2 ? times[n / 2] : 0.5f * (times[n / 2 - 1] + times[n / 2]);
}

// ||out - ref|| / ||ref|| (Frobenius norm) accumulated value by value; -1 if out held NaN/inf.
struct RelativeError {
  double diff = 0, norm = 0;
  bool finite = true;
  void add(double out, double ref) {
    if (!std::isfinite(out)) finite = false;
    diff += (out - ref) * (out - ref);
    norm += ref * ref;
  }
  double value() const {
    if (!finite) return -1;
    return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  }
};

// Prints the result; returns the exit code (0: check passed, 1: wrong result).
// `params` and `details` are JSON object bodies, e.g. "\"size\": 1024".
inline int report(bool json, const char* demo, const std::string& device, const std::string& params,
                  double achieved, const char* unit, double error, double tolerance, const std::string& details) {
  bool passed = error >= 0 && error <= tolerance;
  char error_text[32] = "null";
  if (error >= 0) std::snprintf(error_text, sizeof error_text, "%.3e", error);
  if (json) {
    std::printf("{\"demo\": \"%s\", \"backend\": \"cuda\", \"device\": {\"name\": \"%s\", \"platform\": \"cuda\"}, "
                "\"params\": {%s}, \"achieved\": {\"value\": %.6g, \"unit\": \"%s\"}, "
                "\"check\": {\"passed\": %s, \"relative_error\": %s, \"tolerance\": %g}, \"details\": {%s}}\n",
                demo, device.c_str(), params.c_str(), achieved, unit, passed ? "true" : "false",
                error_text, tolerance, details.c_str());
  } else {
    std::printf("%s · cuda · %s · %s\n  achieved %.4g %s\n  check: relative error %.2e (tolerance %.2g) — %s\n", demo,
                device.c_str(), params.c_str(), achieved, std::strcmp(unit, "gb_s") == 0 ? "GB/s" : "TFLOP/s", error,
                tolerance, passed ? "ok" : "WRONG");
  }
  return passed ? 0 : 1;
}
