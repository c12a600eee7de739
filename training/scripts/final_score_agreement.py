#!/usr/bin/env python3
"""How often a net's count agrees with the recorded result (issue 15).

Usage: final_score_agreement.py TENGEN_BINARY MODEL SGF_DIR

Each *.sgf in SGF_DIR (finished games whose RE holds a counted margin,
e.g. training/data/gnugo-19x19-level1-random2/) is loaded into
`tengen gtp --model MODEL`, and its `final_score` (the net's dead stones,
then the rules' count) is compared with RE: how many winners agree, and the
median and mean absolute difference in points over the games both count.
"""
import os
import re
import statistics
import subprocess
import sys


def margin(result):
    """Black's margin from 'B+3.5' / 'W+12'; None for resignations etc."""
    m = re.match(r"([BW])\+([\d.]+)$", result.strip())
    if not m:
        return None
    v = float(m.group(2))
    return v if m.group(1) == "B" else -v


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, model, folder = sys.argv[1:4]
    engine = subprocess.Popen(
        [binary, "gtp", "--no-autosave", "--model", model],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )

    def ask(command):
        engine.stdin.write(command + "\n")
        engine.stdin.flush()
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit(f"the engine stopped at {command!r}")
            if line.strip():
                lines.append(line.strip())
            elif lines:
                break
        reply = " ".join(lines)
        if not reply.startswith("="):
            sys.exit(f"{command!r}: {reply}")
        return reply[1:].strip()

    games = agree = 0
    diffs = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".sgf"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            found = re.search(r"RE\[([^\]]*)\]", f.read())
        recorded = margin(found.group(1)) if found else None
        if recorded is None:
            continue
        ask("loadsgf " + path)
        counted = margin(ask("final_score"))
        games += 1
        if counted is None:  # "0": a draw by the net's count
            counted = 0.0
        agree += (counted > 0) == (recorded > 0)
        diffs.append(abs(counted - recorded))
    ask("quit")
    if not games:
        sys.exit(f"no counted games in {folder}")
    print(
        f"{model}: winners agree {agree}/{games}, "
        f"abs. difference median {statistics.median(diffs):g}, mean {statistics.mean(diffs):.2f} points"
    )


if __name__ == "__main__":
    main()
