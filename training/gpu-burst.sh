#!/usr/bin/env bash
# A short training burst on a GPU (a `--features wgpu` build of
# tengen-train), in three parts, each under its own time limit:
#
# 1. Training speed on synthetic batches (batch 128 and 512).
# 2. The 19x19 human-data run resumed from its CPU checkpoint: a copy of
#    training/runs/19x19-human-v1 goes on with the same stream settings
#    (exact resume) until --steps or the time limit; it checkpoints every
#    45 s of training, so a stop at the limit loses at most that.
# 3. A 9x9 self-play burst from the current 9x9 net: Gumbel self-play on the
#    GPU, many games at once, then training on those shards.
#
# Usage: training/gpu-burst.sh TENGEN_TRAIN OUT_DIR [SL_SECONDS SP_SECONDS TRAIN_SECONDS]
# Run from the repository root, with the human collections at
# ../shared/datasets/human-19x19/ (the run's checkpoint names them there).
# Writes OUT_DIR/log.txt, OUT_DIR/human/ (the continued run's new checkpoint,
# metrics and log) and OUT_DIR/selfplay/ (shards, SGF, the trained net).
set -u
bin=$1
out=$2
sl_secs=${3:-170}
sp_secs=${4:-75}
tr_secs=${5:-50}
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1

. "$(dirname "$0")/../benches/step.sh"

# Training speed alone (synthetic batches, no data pipeline), per batch size.
for b in 128 512; do
    step "bench-train-$b" 40 "$bin" --device wgpu bench-train --sizes 9,19 --convs burn \
        --batch "$b" --steps 30
done

run=training/runs/19x19-human-v1
data=../shared/datasets/human-19x19
ls "$data"/*-val*.sgfs.gz >/dev/null 2>&1 ||
    echo "warning: no val collections in $data: the checkpoints will carry no val numbers"
human=$out/human
mkdir -p "$human"
cp -r "$run"/LATEST "$run"/metrics.csv "$run"/ckpt-* "$human"/
# The same flags as the CPU run (see its README), with --steps 20000: the
# rate goes on decaying linearly to 1e-4 at step 20,000.
step sl-stream "$sl_secs" "$bin" --device wgpu sl-stream --out "$human" \
    --init models/tengen-19x19-v2.safetensors --min-rank 6d --keep 0.05 --window-games 4000 \
    --batch 128 --lr 1e-3 --lr-end 1e-4 --steps 20000 --checkpoint-minutes 0.75 \
    --val-games 150 --val-every 10 --seed 1 --komi-shift 1.0 --komi-shift-max 12 \
    --komi-shift-jitter 1.0 --rules-mix 0.5 --progress-secs 10 2>"$human/train.log"
tail -n 30 "$human/train.log"

net9=models/tengen-9x9-v9.safetensors
sp=$out/selfplay
step selfplay "$sp_secs" "$bin" --device wgpu selfplay --model "$net9" --out "$sp/data" \
    --games 512 --parallel 256 --eval-lanes 4 --games-per-shard 32 \
    --root-search gumbel --gumbel-m 16 --visits-full 32 --visits-fast 32 --full-prob 1 \
    --decided-visits 8 --sp-seed 5
step train "$tr_secs" "$bin" --device wgpu train --data "$sp/data" --out "$sp/train" \
    --init "$net9" --steps 400 --batch 256 --lr 3e-4 --checkpoint-every 100 \
    --score-weight 0.2 --ownership-weight 0.5
ls -la "$sp/data" "$sp/train" 2>/dev/null
