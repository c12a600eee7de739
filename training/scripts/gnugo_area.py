#!/usr/bin/env python3
"""Marks each game's final area in its SGF, for ownership targets (issue 7).

Usage: gnugo_area.py SGF_DIR [SGF_DIR ...]

For every *.sgf in the folders that has no TB/TW yet, GNU Go 3.8 (level 10,
Chinese rules) loads the game, and its final_status_list verdicts give the
area each colour owns at the end: its living stones, its territory, and the
opponent's dead stones on it. That is written to the game's last node as
TB[...] (Black's area) and TW[...] (White's area), the SGF properties for
"black/white territory or area", so a point in neither is dame (or seki).
`tengen-train sl` reads them as ownership targets. Files are replaced
atomically; a game GNU Go cannot load is left as it was and reported.
Needs /usr/games/gnugo (apt-get install gnugo).
"""
import glob, os, subprocess, sys

COLS = "ABCDEFGHJKLMNOPQRST"


def gtp(p, cmd):
    p.stdin.write(cmd + "\n")
    p.stdin.flush()
    lines = []
    while True:
        line = p.stdout.readline()
        if line == "":
            raise SystemExit("gnugo died")
        if line.strip() == "" and lines:
            break
        if line.strip() == "":
            continue
        lines.append(line.rstrip("\n"))
    reply = " ".join(lines)
    return reply[1:].split() if reply.startswith("=") else None


def sgf_point(vertex, size):
    col = COLS.index(vertex[0].upper())
    row = size - int(vertex[1:])
    return chr(97 + col) + chr(97 + row)


def main():
    p = subprocess.Popen(
        ["/usr/games/gnugo", "--mode", "gtp", "--level", "10", "--chinese-rules"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    done = skipped = failed = 0
    for d in sys.argv[1:]:
        for path in sorted(glob.glob(os.path.join(d, "*.sgf"))):
            text = open(path).read().rstrip()
            if "TB[" in text or "TW[" in text or not text.endswith(")"):
                skipped += 1
                continue
            if gtp(p, "loadsgf " + os.path.abspath(path)) is None:
                print("cannot load", path, file=sys.stderr)
                failed += 1
                continue
            size = int(gtp(p, "query_boardsize")[0])
            dead = set(gtp(p, "final_status_list dead") or [])
            area = {"B": set(gtp(p, "final_status_list black_territory") or []),
                    "W": set(gtp(p, "final_status_list white_territory") or [])}
            for colour, other, name in (("B", "W", "black"), ("W", "B", "white")):
                for v in gtp(p, "list_stones " + name) or []:
                    area[other if v in dead else colour].add(v)
            props = "".join(
                key + "".join("[%s]" % sgf_point(v, size) for v in sorted(area[c]))
                for key, c in (("TB", "B"), ("TW", "W")) if area[c])
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write(text[:-1] + props + ")\n")
            os.replace(tmp, path)
            done += 1
    gtp(p, "quit")
    print("marked %d, already marked %d, failed %d" % (done, skipped, failed))


if __name__ == "__main__":
    main()
