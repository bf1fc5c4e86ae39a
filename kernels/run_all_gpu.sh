#!/usr/bin/env bash
# Run every kernel demo on an NVIDIA GPU once and record the results.
#
#   bash kernels/run_all_gpu.sh [OUT_DIR]
#
# Writes OUT_DIR/results.jsonl (one --json result per line), OUT_DIR/log.txt
# and OUT_DIR/measurements/<device>/<id>.yaml (via `python -m kernels record`).
# Copy the YAML files into data/measurements/, run `python -m atlas validate`
# and commit them. Sizes fill a data-centre GPU (arrays of 1 GiB, 8192^3
# products) within a few minutes in all; each demo checks its result against
# a float64 reference before it reports a figure. Uses the python3 on PATH,
# which must have torch with CUDA; jax and triton are used where installed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-${OUT:-build/gpu-run}}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1
: > "$OUT/results.jsonl"

log() { echo "$*" | tee -a "$OUT/log.txt"; }
run() {  # run NAME COMMAND...: one demo, its JSON appended to results.jsonl
  local name=$1; shift
  local start=$SECONDS
  if "$@" --json > "$OUT/$name.json" 2> "$OUT/$name.err"; then
    tr -d '\n' < "$OUT/$name.json" >> "$OUT/results.jsonl"; echo >> "$OUT/results.jsonl"
    log "ok    $name ($((SECONDS - start)) s): $("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["percent_of_peak"]; print("%.4g %s" % (r["achieved"]["value"], r["achieved"]["unit"]) + (" = %.1f %% of %g" % (p, r["peak"]["value"]) if p else ""))' "$OUT/$name.json")"
  else
    log "FAIL  $name (exit $?): $(tail -n 3 "$OUT/$name.err" | tr '\n' ' ')"
  fi
}

log "== $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$OUT/log.txt"
"$PY" -m kernels 2>&1 | tee -a "$OUT/log.txt"

N=268435456  # 2^28 float32 = 1 GiB per array
for kernel in copy triad; do
  run "bandwidth-torch-$kernel" "$PY" -m kernels.bandwidth_torch --kernel $kernel --size $N --on cuda
  run "bandwidth-triton-$kernel" "$PY" -m kernels.bandwidth_triton --kernel $kernel --size $N
  run "bandwidth-cuda-$kernel" "$PY" -m kernels run bandwidth cuda -- --kernel $kernel --size $N
done
run bandwidth-jax-triad "$PY" -m kernels.bandwidth_jax --kernel triad --size $N

for precision in fp32 tf32 bf16 fp16 fp8; do
  run "matmul-torch-$precision" "$PY" -m kernels.matmul_torch --precision $precision --size 8192 --on cuda
done
for precision in fp32 bf16 fp16 fp8; do
  run "matmul-triton-$precision" "$PY" -m kernels.matmul_triton --precision $precision --size 8192
done
for precision in fp32 bf16; do
  run "matmul-jax-$precision" "$PY" -m kernels.matmul_jax --precision $precision --size 8192
done
for precision in fp32 bf16 fp16 fp8; do
  run "matmul-cuda-$precision" "$PY" -m kernels run matmul cuda -- --precision $precision --size 8192
done

FMAS=1,2,4,8,16,32,64,128,256,512
run intensity-triton "$PY" -m kernels.intensity_triton --size $N --fmas $FMAS
run intensity-cuda "$PY" -m kernels run intensity cuda -- --size $N --fmas $FMAS
run intensity-torch "$PY" -m kernels.intensity_torch --size $N --fmas 1,4,16,64,256 --on cuda
run intensity-jax "$PY" -m kernels.intensity_jax --size $N --fmas 1,4,16,64,256

for op in softmax layernorm; do
  for backend in torch triton jax; do
    run "fused-$op-$backend" "$PY" -m kernels.fused_$backend --op $op --rows 32768 --cols 8192
  done
  run "fused-$op-cuda" "$PY" -m kernels run fused cuda -- --op $op --rows 32768 --cols 8192
done

"$PY" -m kernels record "$OUT/results.jsonl" --out "$OUT/measurements" 2>&1 | tee -a "$OUT/log.txt"
log "== done in $SECONDS s; results in $OUT"
