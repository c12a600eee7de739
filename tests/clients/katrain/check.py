#!/usr/bin/env python3
"""KaTrain's exchange with `tengen analysis`, through KaTrain 1.20.0's own
engine class (`katrain.core.engine.KataGoEngine`, PyPI wheel) and its game
tree (`katrain.core.game_node.GameNode`), headless.

KaTrain's GUI needs Kivy and a display; the engine class imports only two
small pieces of Kivy, so this installs the `katrain` wheel without its
dependencies (no ffpyplayer, no GUI), plus Kivy itself (a wheel, imported
without a window) and `pysgf`, into a virtual environment in a cache
folder, then re-runs itself there.

    python3 tests/clients/katrain/check.py PATH/TO/tengen

KataGoEngine starts tengen as a custom engine (`altcommand`), the way a
KaTrain user would point it at another engine, and sends the queries
KaTrain sends: a 9x9 game analysed move by move with ownership, a
19x19 Japanese position, a region of interest, a pondering query stopped
with `terminate`, and an illegal move (which must come back to the error
callback). Each answer is stored with `GameNode.set_analysis`, KaTrain's
parser, and read back through the properties KaTrain's GUI uses (score,
winrate, candidate moves, ownership, policy). Exits 1 on any mismatch,
0 with "SKIP: ..." when the wheels cannot be installed.
"""
import os
import subprocess
import sys
import threading
import time

PACKAGES = ["katrain==1.20.0", "kivy==2.3.1", "pysgf>=1,<2", "chardet>=5.2,<6",
            # Kivy's own small dependencies, for `import kivy`.
            "filetype", "docutils", "pygments", "Kivy-Garden", "requests",
            "certifi", "urllib3", "idna", "charset-normalizer"]


def skip(why):
    print("SKIP: " + why)
    sys.exit(0)


def ensure_venv():
    """Re-runs this script inside a venv that has KaTrain's engine class."""
    venv = os.environ.get("KATRAIN_VENV") or os.path.expanduser("~/.cache/tengen/katrain-1.20.0-venv")
    # Kivy without its argument parser, console log or files in ~/.kivy.
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_HOME", os.path.join(venv, "kivy-home"))
    try:
        import katrain.core.engine  # noqa: F401
        return
    except ImportError as e:
        if os.environ.get("TENGEN_KATRAIN_VENV_ACTIVE"):
            skip("katrain 1.20.0 did not import in its virtual environment: %s" % e)
    py = os.path.join(venv, "bin", "python")
    ok = os.path.join(venv, ".installed")
    # The wheel is large (it carries KataGo nets); use the copy .ci/run
    # downloads for the KataGo-net tests when it is there.
    packages = list(PACKAGES)
    wheel = os.environ.get("KATRAIN_WHEEL") or os.path.expanduser(
        "~/.cache/tengen/katrain/katrain-1.20.0-py3-none-any.whl")
    if os.path.isfile(wheel):
        packages[0] = wheel
    wanted = " ".join(PACKAGES)
    if not os.path.exists(ok) or open(ok).read() != wanted:
        try:
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True,
                           timeout=120)
            r = subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                "--no-deps"] + packages,
                               capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            skip("could not make a virtual environment for katrain: %s" % e)
        if r.returncode != 0:
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [""]
            skip("could not install katrain 1.20.0 (registry unreachable?): %s" % tail[0])
        with open(ok, "w") as f:
            f.write(wanted)
    env = dict(os.environ, TENGEN_KATRAIN_VENV_ACTIVE="1")
    sys.exit(subprocess.run([py, os.path.abspath(__file__)] + sys.argv[1:], env=env).returncode)


class FakeKaTrain:
    """What KataGoEngine asks of the KaTrain app object."""

    def __init__(self):
        self.errors = []
        self.popups = []

    def log(self, message, level=0):
        from katrain.core.constants import OUTPUT_ERROR
        if level == OUTPUT_ERROR:
            self.errors.append(str(message))

    def __call__(self, *args):
        self.popups.append(args)

    def update_state(self):
        pass


def main():
    if len(sys.argv) < 2:
        print("usage: check.py PATH/TO/tengen")
        sys.exit(2)
    tengen = os.path.abspath(sys.argv[1])
    ensure_venv()
    from katrain.core.engine import KataGoEngine
    from katrain.core.game_node import GameNode
    from pysgf import Move

    checks, failures = [0], [0]

    def check(what, ok, detail=""):
        checks[0] += 1
        if not ok:
            failures[0] += 1
        print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok or not detail else ": " + detail))

    app = FakeKaTrain()
    config = {
        # KaTrain runs a custom command through the shell and, on
        # shutdown, terminates that shell: `exec` makes the shell tengen
        # itself (without it the engine is left running behind the shell).
        "altcommand": "exec %s analysis --visits 64" % tengen,
        "max_visits": 32, "fast_visits": 8, "max_time": 8.0, "wide_root_noise": 0.04,
        "_enable_ownership": True, "allow_recovery": False,
    }
    engine = KataGoEngine(app, config)
    check("engine process started", engine.katago_process is not None, "; ".join(app.errors))

    def analyse(node, timeout=60, **kw):
        """KaTrain's request_analysis; the answer stored by set_analysis."""
        done = threading.Event()
        got = {}

        def callback(analysis, partial):
            node.set_analysis(analysis, partial_result=partial)
            got["analysis"] = analysis
            if not partial:
                done.set()

        def error_callback(analysis):
            got["error"] = analysis
            done.set()

        engine.request_analysis(node, callback, error_callback=error_callback, **kw)
        done.wait(timeout)
        return got

    # A 9x9 game, analysed at every move as KaTrain does while playing.
    root = GameNode(properties={"SZ": 9, "KM": 6.5, "RU": "chinese"})
    node = root
    ok = True
    for i, gtp in enumerate(["E5", "C3", "G7", "C7", "G3", "D5", "E4"]):
        node = node.play(Move.from_gtp(gtp, player="BW"[i % 2]))
        got = analyse(node)
        cands = node.candidate_moves
        own = node.ownership or []
        fine = ("analysis" in got and node.analysis_complete and node.score is not None
                and 0.0 <= node.winrate <= 1.0 and len(cands) > 0
                and all(m["move"] and "scoreLead" in m and "pv" in m and m["visits"] > 0 for m in cands)
                and len(own) == 81 and all(-1.0 <= x <= 1.0 for x in own)
                and len(node.policy or []) == 82)
        if not fine:
            ok = False
            print("  move %d %s: %s" % (i + 1, gtp, str(got)[:400]))
    check("9x9 game: score, winrate, candidates, ownership, policy at each move", ok)
    check("a move's analysis reaches its parent (KaTrain's points lost)",
          node.parent.analysis["moves"].get("E4") is not None)

    # Fast analysis, the way KaTrain analyses a whole loaded game.
    got = analyse(node, analyze_fast=True)
    check("fast visits", "analysis" in got and got["analysis"]["rootInfo"]["visits"] >= 1, str(got)[:300])

    # Find alternatives: avoidMoves with the moves already shown.
    before = set(node.analysis["moves"])
    got = analyse(node, find_alternatives=True)
    new = [m["move"] for m in got.get("analysis", {}).get("moveInfos", [])]
    check("find alternatives avoids the moves shown", bool(new) and not (set(new) & before - {"pass"}),
          "%s vs %s" % (new, sorted(before)))

    # Region of interest: only moves inside it.
    got = analyse(node, region_of_interest=[0, 3, 0, 3])
    new = [m["move"] for m in got.get("analysis", {}).get("moveInfos", [])]
    inside = [Move.from_gtp(m).coords for m in new if m != "pass"]
    check("region of interest", bool(inside) and all(x <= 3 and y <= 3 for x, y in inside), str(new))

    # 19x19 Japanese with handicap stones.
    big = GameNode(properties={"SZ": 19, "KM": 0.5, "RU": "japanese", "HA": 2, "AB": ["dp", "pd"]})
    big = big.play(Move.from_gtp("Q4", player="W"))  # the stones are D4 and Q16
    got = analyse(big)
    check("19x19 Japanese, handicap stones", "analysis" in got and big.analysis_complete
          and len(big.ownership or []) == 361, str(got)[:300])

    # Pondering: KaTrain's continuous query, then terminate.
    got = {}
    event = threading.Event()

    def ponder_cb(analysis, partial):
        got.setdefault("n", 0)
        got["n"] += 1
        event.set()

    engine.request_analysis(node, ponder_cb, ponder=True, report_every=0.2, visits=100000,
                            time_limit=False)
    event.wait(30)
    time.sleep(0.3)
    ids = list(engine.queries)
    engine.terminate_queries()
    time.sleep(1.0)
    check("pondering reports during the search, terminate stops it",
          got.get("n", 0) >= 1 and ids and not engine.queries, "reports %s, left %s" % (got.get("n"), engine.queries))

    # An illegal move goes to the error callback.
    bad = node.play(Move.from_gtp("E4", player="W"))  # E4 is occupied
    got = analyse(bad, timeout=20)
    check("illegal move answered with an error", "error" in got and "llegal" in got["error"].get("error", ""),
          str(got)[:300])

    # The engine survives all of it and shuts down when asked.
    check("no errors logged by KaTrain", not app.errors, "; ".join(app.errors[:5]))
    process = engine.katago_process
    engine.shutdown(finish=False)
    try:
        process.wait(10)
        stopped = True
    except subprocess.TimeoutExpired:
        stopped = False
    check("shutdown ends the engine", stopped)
    print("katrain: %d of %d checks passed" % (checks[0] - failures[0], checks[0]))
    sys.exit(1 if failures[0] else 0)


if __name__ == "__main__":
    main()
