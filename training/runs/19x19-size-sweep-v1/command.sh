#!/usr/bin/env bash
# Net-size sweep (issue 15): each size from a fresh net, the same stream settings
# as 19x19-human-v1, stopped by `timeout 700` (about 9 minutes of training after
# start-up and validation). The 2026-12-05 runs wrote to OUT=/tmp/sweep; the
# metrics files here are copies of $OUT/<arch>/metrics.csv.
set -u
T=${T:-$HOME/.cache/tengen-target/release}
OUT=${OUT:-/tmp/sweep}
mkdir -p "$OUT"
for a in b4c48 b6c64 b10c96; do
  RAYON_NUM_THREADS=2 timeout 700 $T/tengen-train sl-stream --out "$OUT/$a" --arch $a \
    --min-rank 6d --keep 0.05 --window-games 4000 --batch 128 --lr 1e-3 --lr-end 1e-4 --steps 40000 \
    --checkpoint-minutes 3 --val-games 150 --val-every 10 --seed 1 --komi-shift 1.0 --komi-shift-max 12 \
    --rules-mix 0.5 --progress-secs 60 > "$OUT/$a.log" 2>&1
  echo "$a done rc=$? $(date)" >> "$OUT/status"
done
# Play-time speed of each size, after the sweep, alone on the machine:
for a in b4c48 b6c64 b10c96; do
  RAYON_NUM_THREADS=1 $T/tengen benchmark --model "$OUT/$a/model.safetensors" --size 19 --device cpu \
    --seconds 2 --batches 1,8 --threads 1,2 --search-batches 8 > "$OUT/bench-$a.txt"
done
