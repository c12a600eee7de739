#!/bin/sh
# Starts or resumes the run (from the repository root; same command both ways).
exec nice -n 5 "${TENGEN_TRAIN:-tengen-train}" --device cpu loop --root training/runs/19x19-rl-v1 \
  --init training/runs/19x19-human-v1/model.safetensors \
  --min-size 19 --max-size 19 \
  --games-per-gen 96 --parallel 16 --games-per-shard 16 --eval-lanes 2 \
  --root-search gumbel --gumbel-m 16 --visits-full 32 --visits-fast 32 --full-prob 1 \
  --decided-visits 8 --area-variants 0.25 \
  --steps-per-gen 300 --batch 64 --lr 3e-4 --window 100 --checkpoint-every 100 \
  --score-weight 1.0 --ownership-weight 0.5 --komi-shift 0.75 --komi-shift-max 10 \
  --gate-games 20 --gate-visits 32 --gate-komi 5.5,7 \
  --anchor "v2=net:models/tengen-19x19-v2.safetensors" \
  --anchor-games 8 --anchor-visits 32 --anchor-komi 5.5,7 --anchor-parallel 2 \
  --until-generation 3 \
  --sp-seed 3 --seed 3 "$@"
