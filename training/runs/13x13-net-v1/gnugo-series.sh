#!/bin/sh
# 13x13 against GNU Go 3.8 level 10: the 13x13 net, then v4, on the same openings.
set -e
for pair in v1:models/tengen-13x13-v1.safetensors v4:models/tengen-19x19-v4.safetensors; do
  name=${pair%%:*}; model=${pair#*:}
  d=training/runs/13x13-net-v1/match-$name-vs-gnugo10-13x13-256v
  mkdir -p $d
  RAYON_NUM_THREADS=1 tengen-train --device cpu match --model $model --opponent "/usr/games/gnugo --mode gtp --level 10 --chinese-rules --capture-all-dead" --size 13 --games 20 --komi 5.5,7.5 --visits 256 --temperature 1 --temp-moves 2 --resign 0.05 --seed 151 --parallel 2 --timeout 600 --sgf $d/sgf > $d/log.txt 2>&1
done
