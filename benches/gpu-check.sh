#!/usr/bin/env bash
# The GPU check: a wgpu build of tengen on a machine with a GPU. It checks
# that the net gives the CPU's numbers there (`tengen benchmark` compares
# them and fails on a mismatch), measures net throughput and search speed
# on the GPU and, for comparison, on that machine's CPU, and plays a few
# GTP moves on the GPU. Results: training/runs/gpu-*/README.md.
#
# Usage: benches/gpu-check.sh TENGEN_BINARY OUT_DIR
#   TENGEN_BINARY: built with `cargo build --release --features wgpu`.
# Writes OUT_DIR/log.txt (everything) and OUT_DIR/gpu.csv (GPU load and
# memory once a second while it runs). Each step has its own time limit,
# so one slow step cannot take the others' time.
set -u
bin=$1
out=$2
mkdir -p "$out"
log="$out/log.txt"
exec > >(tee "$log") 2>&1

echo "== machine"
date -u
nproc
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv -l 1 >"$out/gpu.csv" 2>&1 &
sampler=$!

. "$(dirname "$0")/step.sh"

step wgpu-19x19 100 "$bin" benchmark --device wgpu --size 19 \
    --batches 1,8,32,128,256,512 --threads 1,4,8,16 --search-batches 16,64,256 --seconds 1.5
step cpu-19x19 45 "$bin" benchmark --device cpu --size 19 \
    --batches 1,8,32 --threads 1,4,16 --search-batches 8,32 --seconds 1.5
step wgpu-9x9 45 "$bin" benchmark --device wgpu --size 9 \
    --batches 1,32,256 --threads 8 --search-batches 64,256 --seconds 1.5
# The engine as a GUI would run it: three moves of 3000 visits each.
gtp_moves='boardsize 19
clear_board
genmove b
genmove w
genmove b
final_score
quit
'
step gtp-wgpu 60 bash -c "printf '%s' '$gtp_moves' | '$bin' gtp --no-autosave --device wgpu --threads 8 --batch 128 --visits 3000"

kill "$sampler" 2>/dev/null
echo
echo "== peak GPU load and memory"
awk -F', ' 'NR > 1 { u = $2 + 0; m = $3 + 0; if (u > mu) mu = u; if (m > mm) mm = m } END { print "utilization " mu " %, memory " mm " MiB" }' "$out/gpu.csv"
