#!/usr/bin/env python3
"""GNU Go self-play games for supervised bootstrap data (issue 7).

Usage: gnugo_selfplay.py OUT_DIR GAMES FIRST_INDEX [SIZE [LEVEL [RANDOM]]]
One GNU Go 3.8 process (level LEVEL, default 10; Chinese rules, komi 7,
SIZE x SIZE, default 9; seed 1000+index) plays both colours; the moves are
recorded and written as SGF with the result GNU Go counts. Games stop after
two passes or 2*SIZE*SIZE moves. Needs /usr/games/gnugo (apt-get install gnugo).

GNU Go varies little with its seed (of the first 514 9x9 games only 301
were distinct), so RANDOM (default 0) opening moves are drawn at random
(Python's generator seeded with the game's seed) from the points off the
first two lines; they carry the comment C[random opening move] and
`tengen-train sl` gives them no policy target.
"""
import subprocess, sys, os, random
out = sys.argv[1]; n = int(sys.argv[2]); start = int(sys.argv[3])
size = int(sys.argv[4]) if len(sys.argv) > 4 else 9
level = int(sys.argv[5]) if len(sys.argv) > 5 else 10
n_random = int(sys.argv[6]) if len(sys.argv) > 6 else 0
os.makedirs(out, exist_ok=True)
def gtp(p, c):
    p.stdin.write(c + "\n"); p.stdin.flush(); lines = []
    while True:
        l = p.stdout.readline()
        if l == "": raise SystemExit("gnugo died")
        if l.strip() == "" and lines: break
        if l.strip() == "": continue
        lines.append(l.rstrip("\n"))
    r = "\n".join(lines)
    return r[1:].strip() if r.startswith("=") else None
for g in range(start, start + n):
    seed = 1000 + g
    p = subprocess.Popen(["/usr/games/gnugo", "--mode", "gtp", "--level", str(level), "--chinese-rules", "--seed", str(seed)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    gtp(p, "boardsize %d" % size); gtp(p, "clear_board"); gtp(p, "komi 7")
    col, passes, moves, rec = "b", 0, 0, []
    cols = "ABCDEFGHJKLMNOPQRST"[:size]
    rng = random.Random(seed)
    inner = [(x, y) for x in range(2, size - 2) for y in range(2, size - 2)]
    for (x, y) in rng.sample(inner, min(n_random, len(inner))):
        gtp(p, "play %s %s%d" % (col, cols[x], size - y))
        rec.append(";%s[%s%s]C[random opening move]" % (col.upper(), chr(97 + x), chr(97 + y)))
        moves += 1
        col = "w" if col == "b" else "b"
    while passes < 2 and moves < 2 * size * size:
        m = gtp(p, "genmove " + col)
        if m is None or m.lower() == "resign": break
        passes = passes + 1 if m.lower() == "pass" else 0
        if m.lower() == "pass":
            rec.append(";%s[]" % col.upper())
        else:
            x = cols.index(m[0].upper()); y = size - int(m[1:])
            rec.append(";%s[%s%s]" % (col.upper(), chr(97 + x), chr(97 + y)))
        moves += 1
        col = "w" if col == "b" else "b"
    score = (gtp(p, "final_score") or "?").replace(".0", "")
    komi = gtp(p, "get_komi")
    p.stdin.write("quit\n"); p.stdin.flush(); p.wait()
    sgf = "(;GM[1]FF[4]CA[UTF-8]SZ[%d]KM[%s]RU[Chinese]RE[%s]PB[GNU Go 3.8 level %d]PW[GNU Go 3.8 level %d]AP[tengen data script]C[GNU Go self-play, seed %d]\n%s)" % (size, komi, score, level, level, seed, "".join(rec))
    if moves > 0:
        path = os.path.join(out, "game-%04d.sgf" % g)
        open(path + ".tmp", "w").write(sgf + "\n"); os.replace(path + ".tmp", path)
        print(g, moves, score, flush=True)
