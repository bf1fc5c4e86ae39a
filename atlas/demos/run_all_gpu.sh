#!/usr/bin/env bash
# Run every kernel demo on an NVIDIA GPU once and record the results.
#
#   bash atlas/demos/run_all_gpu.sh [OUT_DIR]
#   WINDOW=540 bash atlas/demos/run_all_gpu.sh build/gpu-run   # seconds the whole run may take
#   BUDGET_MAX=20 ...                                       # cap every demo's own budget
#
# Writes OUT_DIR/results.jsonl (one --json result per line, appended as each
# demo finishes), OUT_DIR/log.txt and OUT_DIR/measurements/<device>/<id>.yaml
# (via `python -m atlas.demos record`, also when the run is cut short). Copy the
# YAML files into data/measurements/, run `python -m atlas.data validate` and
# commit them. Sizes fill a data-centre GPU (arrays of 1 GiB, 8192^3
# products); each demo checks its result against a float64 reference before
# it reports a figure. Uses the python3 on PATH, which must have torch with
# CUDA; jax and triton are used where installed.
#
# Time: every demo runs under its own budget (BUDGET=..., with `timeout`), and a demo whose
# budget no longer fits into what is left of WINDOW (default 540 s, so that
# a 10-minute window keeps a minute for starting and recording) is skipped
# with a line in the log. The order puts the cheap, informative runs first:
# one result per demo, then the runs that confirm the fixes of the first
# H200 run (Triton FP8, JAX's intensity sweep), the fused demos, the other
# precisions and back ends, and last the sweeps that compile a kernel per
# point (Triton and torch.compile, about a minute each on an H200). On the
# first H200 run (2026-12-04) the demos took 5-22 s each, the Triton sweep 65 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-${OUT:-build/gpu-run}}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
WINDOW="${WINDOW:-540}"
export PYTHONUNBUFFERED=1
: > "$OUT/results.jsonl"

log() { echo "$*" | tee -a "$OUT/log.txt"; }
run() {  # [BUDGET=SECONDS] run NAME COMMAND...: one demo under its time budget (default 30 s), its JSON appended to results.jsonl
  local name=$1 budget=${BUDGET:-30}; shift
  (( budget > ${BUDGET_MAX:-budget} )) && budget=$BUDGET_MAX
  local start=$SECONDS status
  if (( SECONDS + budget > WINDOW )); then
    log "SKIP  $name (budget $budget s; $((WINDOW - SECONDS)) s of the window left)"
    return
  fi
  timeout --kill-after=5 "$budget" "$@" --json > "$OUT/$name.json" 2> "$OUT/$name.err"
  status=$?
  if (( status == 0 )); then
    tr -d '\n' < "$OUT/$name.json" >> "$OUT/results.jsonl"; echo >> "$OUT/results.jsonl"
    log "ok    $name ($((SECONDS - start)) s): $("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["percent_of_peak"]; print("%.4g %s" % (r["achieved"]["value"], r["achieved"]["unit"]) + (" = %.1f %% of %g" % (p, r["peak"]["value"]) if p else ""))' "$OUT/$name.json")"
  elif (( status == 124 || status == 137 )); then
    log "TIME  $name (stopped at its budget of $budget s)"
  else
    log "FAIL  $name (exit $status): $(tail -n 3 "$OUT/$name.err" | tr '\n' ' ')"
  fi
}
finish() {  # record whatever has finished, also when the window is cut short
  trap - EXIT
  "$PY" -m atlas.demos record "$OUT/results.jsonl" --out "$OUT/measurements" 2>&1 | tee -a "$OUT/log.txt"
  log "== done in $SECONDS s; results in $OUT"
}
trap finish EXIT
trap 'exit 143' TERM INT

log "== $(date -u +%FT%TZ) on $(hostname), window $WINDOW s"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$OUT/log.txt"
timeout 60 "$PY" -m atlas.demos 2>&1 | tee -a "$OUT/log.txt"

N=268435456  # 2^28 float32 = 1 GiB per array
FMAS=1,2,4,8,16,32,64,128,256,512

# 1. One result per demo, from its fastest back end (about 10 s each).
BUDGET=30 run bandwidth-cuda-copy "$PY" -m atlas.demos run bandwidth cuda -- --kernel copy --size $N
BUDGET=30 run matmul-torch-bf16 "$PY" -m atlas.demos.matmul_torch --precision bf16 --size 8192 --on cuda
BUDGET=40 run intensity-cuda "$PY" -m atlas.demos run intensity cuda -- --size $N --fmas $FMAS
BUDGET=40 run fused-softmax-cuda "$PY" -m atlas.demos run fused cuda -- --op softmax --rows 32768 --cols 8192

# 2. What the first H200 run left open: Triton FP8 with B K-major, and how many kernels XLA
#    makes of the FMA chain (details.points[].kernels, max_kernels_per_run).
BUDGET=40 run matmul-triton-fp8 "$PY" -m atlas.demos.matmul_triton --precision fp8 --size 8192
BUDGET=90 run intensity-jax "$PY" -m atlas.demos.intensity_jax --size $N --fmas 1,4,16,64,256

# 3. The fused demos in every back end.
for op in softmax layernorm; do
  for backend in torch triton jax; do
    BUDGET=45 run "fused-$op-$backend" "$PY" -m atlas.demos.fused_$backend --op $op --rows 32768 --cols 8192
  done
  [[ $op == softmax ]] && continue  # its CUDA C run is in part 1
  BUDGET=40 run "fused-$op-cuda" "$PY" -m atlas.demos run fused cuda -- --op $op --rows 32768 --cols 8192
done

# 4. The other precisions and back ends.
for precision in fp8 fp16 tf32 fp32; do
  BUDGET=30 run "matmul-torch-$precision" "$PY" -m atlas.demos.matmul_torch --precision $precision --size 8192 --on cuda
done
for precision in bf16 fp16 fp32; do
  BUDGET=40 run "matmul-triton-$precision" "$PY" -m atlas.demos.matmul_triton --precision $precision --size 8192
done
for precision in bf16 fp16 fp8 fp32; do
  BUDGET=40 run "matmul-cuda-$precision" "$PY" -m atlas.demos run matmul cuda -- --precision $precision --size 8192
done
for precision in bf16 fp32; do
  BUDGET=40 run "matmul-jax-$precision" "$PY" -m atlas.demos.matmul_jax --precision $precision --size 8192
done
for kernel in copy triad; do
  [[ $kernel == copy ]] || BUDGET=30 run "bandwidth-cuda-$kernel" "$PY" -m atlas.demos run bandwidth cuda -- --kernel $kernel --size $N
  BUDGET=30 run "bandwidth-torch-$kernel" "$PY" -m atlas.demos.bandwidth_torch --kernel $kernel --size $N --on cuda
  BUDGET=40 run "bandwidth-triton-$kernel" "$PY" -m atlas.demos.bandwidth_triton --kernel $kernel --size $N
done
BUDGET=30 run bandwidth-jax-triad "$PY" -m atlas.demos.bandwidth_jax --kernel triad --size $N

# 5. The sweeps that compile one kernel per point.
BUDGET=120 run intensity-triton "$PY" -m atlas.demos.intensity_triton --size $N --fmas $FMAS
BUDGET=150 run intensity-torch "$PY" -m atlas.demos.intensity_torch --size $N --fmas 1,4,16,64,256 --on cuda
