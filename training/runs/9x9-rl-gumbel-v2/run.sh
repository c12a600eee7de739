#!/bin/sh
# Starts or resumes the run (from the repository root; same command both ways).
exec nice -n 5 "${TENGEN_TRAIN:-tengen-train}" --device cpu loop --root training/runs/9x9-rl-gumbel-v2 \
  --init training/runs/9x9-rl-gumbel-v1/models/gen-0002.safetensors \
  --games-per-gen 750 --parallel 16 --games-per-shard 16 --eval-lanes 2 \
  --root-search gumbel --gumbel-m 16 --visits-full 32 --visits-fast 32 --full-prob 1 \
  --decided-visits 8 --area-variants 0 \
  --steps-per-gen 800 --batch 64 --lr 3e-4 --window 100 --checkpoint-every 200 \
  --score-weight 0.2 --ownership-weight 0.5 \
  --gate-games 40 --gate-visits 200 --gate-komi 5.5,7 \
  --anchor "v4=net:models/tengen-9x9-v4.safetensors" \
  --anchor "gnugo10=gtp:/usr/games/gnugo --mode gtp --level 10 --capture-all-dead" \
  --anchor-games 24 --anchor-visits 200 --anchor-komi 5.5,7 --anchor-parallel 2 \
  --sp-seed 2 --seed 2
