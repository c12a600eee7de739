#!/usr/bin/env python3
"""gomill's exchange with `tengen gtp`: the real ringmaster of gomill 0.8.3
(PyPI) plays a short playoff of 9x9 games, tengen against GNU Go level 1,
at komi 7 and 7.5, both engines scoring (`scorer='players'`, so each
game ends with `final_score` asked of both), and at komi 7 scored by
ringmaster itself (every stone on the board alive).

gomill 0.8.3 needs **Python 2** (2.7); this script itself is Python 3.
It installs gomill with Python 2's pip into a cache folder and writes the
control file there.

    python3 tests/clients/gomill/check.py PATH/TO/tengen [--games N] [--keep DIR]

Checks: every game was played to its end (no void game, no forfeit, no
illegal move, no engine error in ringmaster's log), every result parses
(B+n, W+n or a jigo), and tengen's `final_score` agrees with GNU Go's
(`--chinese-rules`) on the winner, and in the games ringmaster scores,
that its strict count does not take from tengen a game tengen's own
count gives it (a pass with dead stones standing); a disagreement is
printed as WARN and fails with --strict-scores. Exits 0 with "SKIP: ..."
when Python 2, the package registry or GNU Go is not available.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

GOMILL = "gomill==0.8.3"


def skip(why):
    print("SKIP: " + why)
    sys.exit(0)


def find_python2():
    """A Python 2 interpreter, or None (pyenv shims may exist and fail)."""
    cands = [os.environ.get("GOMILL_PYTHON2", "")]
    cands += [shutil.which(n) or "" for n in ("python2", "python2.7")]
    roots = [os.path.expanduser("~/.pyenv")]
    if shutil.which("pyenv"):
        try:
            roots.insert(0, subprocess.run(["pyenv", "root"], capture_output=True, text=True,
                                           timeout=10).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    for root in roots:
        cands += sorted(glob.glob(os.path.join(root, "versions", "2.*", "bin", "python2")))
    for c in cands:
        if not c:
            continue
        try:
            r = subprocess.run([c, "-c", "import sys; print(sys.version_info[0])"],
                               capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            continue
        if r.returncode == 0 and r.stdout.strip() == "2":
            return c
    return None


def find_gnugo():
    for c in (os.environ.get("GNUGO", ""), shutil.which("gnugo") or "", "/usr/games/gnugo"):
        if c and os.access(c, os.X_OK):
            return c
    return None


def install_gomill(python2, cache):
    """gomill installed under `cache` (reused when there); its ringmaster."""
    ringmaster = os.path.join(cache, "bin", "ringmaster")
    if os.path.exists(os.path.join(cache, "gomill", "ringmasters.py")) and os.path.exists(ringmaster):
        return ringmaster
    os.makedirs(cache, exist_ok=True)
    try:
        r = subprocess.run([python2, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--no-deps", "--target", cache, GOMILL],
                           capture_output=True, text=True, timeout=180)
    except (OSError, subprocess.SubprocessError) as e:
        skip("could not run Python 2's pip to install %s: %s" % (GOMILL, e))
    if r.returncode != 0 or not os.path.exists(ringmaster):
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
        skip("could not install %s with Python 2's pip (registry unreachable?): %s" % (GOMILL, tail[0]))
    return ringmaster


CONTROL = """\
competition_type = 'playoff'
board_size = 9
komi = 7
record_games = True
stderr_to_log = True
players = {{
    'tengen': Player({tengen!r}),
    'gnugo': Player({gnugo!r}),
}}
matchups = [
    Matchup('tengen', 'gnugo', id='k7', komi=7, alternating=True,
            number_of_games={games}, scorer='players'),
    Matchup('tengen', 'gnugo', id='k75', komi=7.5, alternating=True,
            number_of_games={games}, scorer='players'),
    # ringmaster's own count: every stone on the board alive.
    Matchup('tengen', 'gnugo', id='k7strict', komi=7, alternating=True,
            number_of_games={games}, scorer='internal'),
]
"""

RESULT = re.compile(r"^(0|Draw|[BW]\+(\d+(\.\d+)?)?)$")
# A game's RE may also be a resignation (SGF's B+R or B+Resign): ringmaster
# writes B+R when GNU Go resigns, which it does in lost positions.
RESIGNED = re.compile(r"^[BW]\+R(esign)?$")


def sgf_prop(text, name):
    m = re.search(r"(?<![A-Z])" + name + r"\[((?:[^\]\\]|\\.)*)\]", text)
    return m.group(1) if m else None


def tengen_count(tengen, sgf):
    """tengen's own `final_score` of a finished game record."""
    try:
        r = subprocess.run([tengen, "gtp", "--no-autosave"], input="loadsgf %s\nfinal_score\nquit\n" % sgf,
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return "?"
    replies = [l[1:].strip() for l in r.stdout.splitlines() if l.startswith("=")]
    return replies[1] if len(replies) > 1 else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tengen")
    ap.add_argument("--games", type=int, default=2, help="games per komi (default 2)")
    ap.add_argument("--visits", type=int, default=50)
    ap.add_argument("--keep", help="copy the game records (SGF) to this folder")
    ap.add_argument("--strict-scores", action="store_true",
                    help="fail when tengen's final_score and GNU Go's disagree on the winner")
    args = ap.parse_args()

    tengen = os.path.abspath(args.tengen)
    if not os.access(tengen, os.X_OK):
        print("FAIL: no tengen binary at " + tengen)
        sys.exit(1)
    python2 = find_python2()
    if python2 is None:
        skip("gomill 0.8.3 needs Python 2 and none was found (set GOMILL_PYTHON2)")
    gnugo = find_gnugo()
    if gnugo is None:
        skip("GNU Go is not installed (apt-get install gnugo)")
    cache = os.environ.get("GOMILL_DIR") or os.path.expanduser("~/.cache/tengen/gomill-0.8.3")
    ringmaster = install_gomill(python2, cache)

    work = tempfile.mkdtemp(prefix="tengen-gomill-")
    ctl = os.path.join(work, "check.ctl")
    with open(ctl, "w") as f:
        f.write(CONTROL.format(
            tengen="%s gtp --no-autosave --visits %d" % (tengen, args.visits),
            gnugo="%s --mode gtp --level 1 --chinese-rules" % gnugo,
            games=args.games))
    env = dict(os.environ, PYTHONPATH=cache)
    try:
        r = subprocess.run([python2, ringmaster, ctl, "run", "--quiet"], env=env,
                           capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        print("FAIL: ringmaster did not finish in 900 s")
        sys.exit(1)

    failures, warnings = [], []
    if r.returncode != 0:
        failures.append("ringmaster exited %d: %s" % (r.returncode, (r.stderr or r.stdout).strip()[-500:]))
    log = open(os.path.join(work, "check.log")).read() if os.path.exists(ctl[:-4] + ".log") else ""
    for line in log.splitlines():
        if re.search(r"error|aborting|void|halting|failure", line, re.I):
            failures.append("ringmaster log: " + line.strip())
    void = glob.glob(os.path.join(work, "check.void", "*"))
    if void:
        failures.append("%d void games (%s)" % (len(void), ", ".join(map(os.path.basename, void))))
    games = sorted(glob.glob(os.path.join(work, "check.games", "*.sgf")))
    if len(games) != 3 * args.games:
        failures.append("%d game records, %d games asked for" % (len(games), 3 * args.games))
    for path in games:
        text = open(path).read()
        name = os.path.basename(path)
        result = sgf_prop(text, "RE") or ""
        played = re.findall(r"(?<![A-Z])[BW]\[([a-z]*)\]", text)
        moves = len(played)
        scores = dict(re.findall(r"(tengen|gnugo) final_score: ([^\s\]]+)", text))
        black = "tengen" if "PB[tengen" in text else "gnugo"
        both = ("tengen %s, GNU Go %s" % (scores.get("tengen"), scores.get("gnugo"))
                if scores else "ringmaster's count" if name.startswith("k7strict")
                else "both engines' final_score")
        line = "game %s komi %s: tengen %s, %d moves, %s (%s)" % (
            name[:-4], sgf_prop(text, "KM"), "black" if black == "tengen" else "white",
            moves, result, both)
        print(line)
        if "forfeit" in text or "F" in result[2:]:
            failures.append("%s: forfeit: %s" % (name, sgf_prop(text, "C")))
        elif result == "?" or result.startswith("Void"):
            if "players disagreed" in text:
                warnings.append("%s: players disagreed: tengen %s, GNU Go %s" % (
                    name, scores.get("tengen"), scores.get("gnugo")))
            else:
                failures.append("%s: no result: %s" % (name, sgf_prop(text, "C")))
        elif not RESULT.match(result) and not RESIGNED.match(result):
            failures.append("%s: result %r does not parse" % (name, result))
        # ringmaster writes both final_score replies into the record only
        # when they differ.
        for who, s in scores.items():
            if not RESULT.match(re.sub(r"\.0$", "", s)):
                failures.append("%s: %s final_score %r does not parse" % (name, who, s))
        if name.startswith("k7strict") and RESULT.match(result):
            # A strict count that does not give tengen the game its own
            # count gives it: tengen passed with dead stones standing.
            own = tengen_count(tengen, path)
            winner = lambda r: "B" if r.startswith("B+") else "W" if r.startswith("W+") else "0"
            ours = "B" if black == "tengen" else "W"
            if winner(own) == ours and winner(result) != ours:
                warnings.append("%s: ringmaster's strict count %s, tengen's final_score %s: "
                                "tengen passed while the strict count did not win" % (name, result, own))
        if played[-2:] not in (["", ""], ["tt", "tt"], ["tt", ""], ["", "tt"]) \
                and "resign" not in text.lower() and not RESIGNED.match(result):
            failures.append("%s: did not end by two passes or a resignation" % name)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for path in games:
            shutil.copy(path, args.keep)
    if args.strict_scores:
        failures += warnings
        warnings = []
    for w in warnings:
        print("WARN " + w)
    for f in failures:
        print("FAIL " + f)
    print("gomill: %d games, %d failures, %d warnings" % (len(games), len(failures), len(warnings)))
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("ringmaster's files are in " + work)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
