#!/usr/bin/env python3
"""Soak test: tengen (GTP, a real subprocess) against GNU Go on 9x9 under a
byo-yomi clock kept by this referee, several games at once.

Counts crashes (tengen's process dies), illegal moves (GNU Go refuses
tengen's move), time losses (a genmove reply later than the period) and
hangs (no reply within HANG seconds). Prints one line per game and a
summary; exits non-zero if any of the four happened.

    python3 tests/soak/gtp_soak.py --tengen target/release/tengen \
        --games 500 --parallel 2 --period 1

Standard library only.
"""
import argparse
import concurrent.futures
import subprocess
import sys
import threading
import time

HANG = 15.0


class Engine:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, cmd, timeout=HANG):
        """Returns (ok, text, seconds); raises TimeoutError or EOFError."""
        start = time.monotonic()
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        lines = []
        result = {}

        def read():
            while True:
                line = self.p.stdout.readline()
                if line == "":
                    result["eof"] = True
                    return
                line = line.rstrip("\r\n")
                if line == "" and lines:
                    return
                if line or lines:
                    lines.append(line)

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        if t.is_alive():
            raise TimeoutError(cmd)
        if result.get("eof"):
            raise EOFError(cmd)
        text = "\n".join(lines)
        return text.startswith("="), text[1:].strip(), time.monotonic() - start

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


def game(i, args):
    tengen = Engine([args.tengen, "gtp", "--no-autosave", "--size", "9", "--seed", str(i)])
    gnugo = Engine([args.gnugo, "--mode", "gtp", "--level", str(args.level), "--seed", str(i)])
    komi = args.komi[i % len(args.komi)]
    ours = "b" if i % 2 == 0 else "w"
    out = {"game": i, "crash": 0, "illegal": 0, "timeloss": 0, "hang": 0, "moves": 0, "max_s": 0.0}
    try:
        for e in (tengen, gnugo):
            e.send("boardsize 9")
            e.send("clear_board")
            e.send(f"komi {komi}")
        tengen.send(f"time_settings 0 {args.period} 1")
        passes, to_move = 0, "b"
        while passes < 2 and out["moves"] < 200:
            mover, other = (tengen, gnugo) if to_move == ours else (gnugo, tengen)
            if mover is tengen:
                tengen.send(f"time_left {to_move} {args.period} 1")
            ok, mv, secs = mover.send(f"genmove {to_move}")
            if mover is tengen:
                out["max_s"] = max(out["max_s"], secs)
                if secs > args.period:
                    out["timeloss"] += 1
            if not ok:
                # tengen refusing to move is as bad as an illegal move.
                if mover is tengen:
                    out["illegal"] += 1
                break
            if mv.lower() == "resign":
                break
            ok, _, _ = other.send(f"play {to_move} {mv}")
            if not ok and other is gnugo:
                out["illegal"] += 1
                break
            passes = passes + 1 if mv.lower() == "pass" else 0
            out["moves"] += 1
            to_move = "w" if to_move == "b" else "b"
    except TimeoutError:
        out["hang"] += 1
    except EOFError:
        out["crash"] += 1
    finally:
        if tengen.p.poll() is not None and tengen.p.returncode not in (0, None):
            out["crash"] = max(out["crash"], 1)
        tengen.close()
        gnugo.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tengen", required=True)
    ap.add_argument("--gnugo", default="/usr/games/gnugo")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--first", type=int, default=0,
                    help="index (and seed) of the first game, to continue an earlier soak")
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--period", type=float, default=1.0)
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--komi", type=float, nargs="+", default=[5.5, 7.0])
    args = ap.parse_args()
    totals = {"crash": 0, "illegal": 0, "timeloss": 0, "hang": 0, "moves": 0}
    worst = 0.0
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
        for r in pool.map(lambda i: game(i, args), range(args.first, args.first + args.games)):
            print(f"game {r['game']}: {r['moves']} moves, slowest genmove {r['max_s']:.3f} s, "
                  f"crash {r['crash']} illegal {r['illegal']} timeloss {r['timeloss']} hang {r['hang']}",
                  flush=True)
            for k in totals:
                totals[k] += r[k]
            worst = max(worst, r["max_s"])
    print(f"summary: {args.games} games, {totals['moves']} moves, {time.monotonic() - start:.0f} s; "
          f"crashes {totals['crash']}, illegal {totals['illegal']}, time losses {totals['timeloss']}, "
          f"hangs {totals['hang']}; slowest genmove {worst:.3f} s of {args.period} s")
    bad = totals["crash"] + totals["illegal"] + totals["timeloss"] + totals["hang"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
