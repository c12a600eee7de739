#!/bin/sh
# Starts or resumes the run (from the repository root; same command both ways).
exec nice -n 5 "${TENGEN_TRAIN:-tengen-train}" --device cpu loop --root training/runs/9x9-rl-v1 \
  --init models/tengen-9x9-v4.safetensors \
  --games-per-gen 500 --parallel 8 --games-per-shard 16 \
  --root-search puct --visits-full 200 --visits-fast 40 --full-prob 0.25 \
  --steps-per-gen 800 --batch 64 --lr 3e-4 --window 100 --checkpoint-every 200 \
  --gate-games 40 --gate-visits 200 --gate-komi 5.5,7 \
  --anchor "v4=net:models/tengen-9x9-v4.safetensors" \
  --anchor "gnugo10=gtp:/usr/games/gnugo --mode gtp --level 10 --capture-all-dead" \
  --anchor-games 24 --anchor-visits 200 --anchor-komi 5.5,7 --anchor-parallel 2 \
  --sp-seed 1 --seed 1
