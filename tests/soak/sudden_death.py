#!/usr/bin/env python3
"""Sudden death, end to end (issue 18, A2): full games of tengen (GTP, a
real subprocess) against GNU Go under `time_settings MAIN 0 0`, the clock
kept by this referee. tengen's clock runs from the moment `genmove` is
sent until its reply arrives, and the referee tells it what is left with
`time_left` before every move, as a tournament referee does. A reply
after the clock ran out is a time loss; the game stops there.

Prints, per game, the time per move over the game (by tenths of the game
and the slowest move), how much of the clock was used, and whether the
last moves were still searched (the reply time of tengen's last ten
moves); and a summary. Exits non-zero on a time loss, crash, hang or
illegal move. The event's clock is one hour (`--main 3600`); a scaled
clock (`--main 600`) gives the same shape in a tenth of the time.

    python3 tests/soak/sudden_death.py --tengen target/release/tengen \
        --size 19 --main 600 --games 2 --level 10 --csv runs/sudden-death.csv

Standard library only; GNU Go at /usr/games/gnugo.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtp_soak import Engine  # noqa: E402


def game(i, args, csv):
    tengen = Engine([args.tengen, "gtp", "--no-autosave", "--size", str(args.size),
                     "--seed", str(i)] + args.tengen_arg)
    gnugo = Engine([args.gnugo, "--mode", "gtp", "--level", str(args.level), "--seed", str(i),
                    "--chinese-rules", "--capture-all-dead"])
    komi = args.komi[i % len(args.komi)]
    ours = "b" if i % 2 == 0 else "w"
    left = float(args.main)
    times = []  # tengen's reply times, in order
    out = {"game": i, "color": ours, "moves": 0, "timeloss": 0, "crash": 0, "hang": 0,
           "illegal": 0, "result": "?"}
    hang = args.main + 60.0
    try:
        for e in (tengen, gnugo):
            e.send(f"boardsize {args.size}")
            e.send("clear_board")
            e.send(f"komi {komi}")
        tengen.send(f"time_settings {args.main} 0 0")
        passes, to_move = 0, "b"
        while passes < 2 and out["moves"] < args.max_moves:
            mover, other = (tengen, gnugo) if to_move == ours else (gnugo, tengen)
            if mover is tengen:
                tengen.send(f"time_left {to_move} {int(max(left, 0))} 0")
                ok, mv, secs = tengen.send(f"genmove {to_move}", timeout=hang)
                left -= secs
                times.append(secs)
                if csv:
                    csv.write(f"{i},{out['moves']},{secs:.3f},{left:.3f}\n")
                    csv.flush()
                if left < 0:
                    out["timeloss"] = 1
                    break
            else:
                ok, mv, _ = gnugo.send(f"genmove {to_move}", timeout=600)
            if not ok:
                if mover is tengen:
                    out["illegal"] = 1
                break
            if mv.lower() == "resign":
                out["result"] = f"{'W' if to_move == 'b' else 'B'}+R"
                break
            ok, _, _ = other.send(f"play {to_move} {mv}")
            if not ok and other is gnugo:
                out["illegal"] = 1
                break
            passes = passes + 1 if mv.lower() == "pass" else 0
            out["moves"] += 1
            to_move = "w" if to_move == "b" else "b"
        if out["result"] == "?" and passes >= 2:
            ok, r, _ = gnugo.send("final_score", timeout=120)
            out["result"] = r if ok else "?"
    except TimeoutError:
        out["hang"] = 1
    except EOFError:
        out["crash"] = 1
    finally:
        if tengen.p.poll() is not None and tengen.p.returncode not in (0, None):
            out["crash"] = 1
        tengen.close()
        gnugo.close()
    out["used"] = args.main - left
    out["times"] = times
    return out


def shape(times):
    """Mean reply time in each tenth of tengen's moves."""
    n = len(times)
    if n == 0:
        return []
    out = []
    for k in range(10):
        part = times[k * n // 10:(k + 1) * n // 10]
        out.append(sum(part) / len(part) if part else 0.0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tengen", required=True)
    ap.add_argument("--gnugo", default="/usr/games/gnugo")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--main", type=float, default=600.0, help="main time per side, seconds")
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--komi", type=float, nargs="+", default=[5.5, 7.0])
    ap.add_argument("--max-moves", type=int, default=600)
    ap.add_argument("--csv", help="per-move times: game,move,seconds,left")
    ap.add_argument("--tengen-arg", action="append", default=[],
                    help="an extra argument for tengen gtp (repeatable)")
    args = ap.parse_args()
    csv = None
    if args.csv:
        new = not os.path.exists(args.csv)
        csv = open(args.csv, "a")
        if new:
            csv.write("game,move,seconds,left\n")
    bad = 0
    for i in range(args.games):
        r = game(i, args, csv)
        t = r["times"]
        last = t[-10:]
        print(f"game {i} (tengen {r['color']}): {r['moves']} moves, result {r['result']}, "
              f"clock used {r['used']:.1f} of {args.main:.0f} s, slowest move "
              f"{max(t) if t else 0:.2f} s; time loss {r['timeloss']} crash {r['crash']} "
              f"hang {r['hang']} illegal {r['illegal']}", flush=True)
        print("  mean s/move by tenth of the game: "
              + " ".join(f"{x:.2f}" for x in shape(t)), flush=True)
        print("  last ten moves: " + " ".join(f"{x:.2f}" for x in last), flush=True)
        bad += r["timeloss"] + r["crash"] + r["hang"] + r["illegal"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
