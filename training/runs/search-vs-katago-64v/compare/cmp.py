"""Same positions, same net, 64 visits, deterministic: compare the root
visit distributions of KataGo's and tengen's analysis engines."""
import json, subprocess, sys, re, glob
import os
NET = os.environ["KATAGO_NET"]  # b10c384h6nbttflrs.bin.gz
KATAGO = os.environ["KATAGO"]  # a KataGo 1.17.2 binary
TENGEN = os.environ.get("TENGEN", "tengen")
GAMES = os.environ.get("GAMES", os.path.join(os.path.dirname(__file__), "..", "kata-stripped", "sgf"))
HERE = os.path.dirname(os.path.abspath(__file__))
def kata(cfg, overrides):
    args = [KATAGO, "analysis", "-model", NET, "-config", cfg]
    if overrides: args += ["-override-config", ",".join(overrides)]
    return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
def tengen(params):
    args = [TENGEN, "analysis", "--model", NET, "--device", "cpu", "--threads", "1", "--batch", "1", "--workers", "1", "--report-as", "SIDETOMOVE"]
    for p in params: args += ["--search-param", p]
    return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
def ask(p, q):
    p.stdin.write(json.dumps(q) + "\n"); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line: raise RuntimeError("engine died")
        r = json.loads(line)
        if r.get("id") == q["id"] and not r.get("isDuringSearch"):
            return r
# KataGo's full search settings, as the judge of whole games.
JUDGE = ["staticScoreUtilityFactor=0.1", "dynamicScoreUtilityFactor=0.3", "useGraphSearch=true", "valueWeightExponent=0.25", "useNoisePruning=true", "useUncertainty=true", "subtreeValueBiasFactor=0.45", "cpuctUtilityStdevScale=0.85", "fpuParentWeightByVisitedPolicy=true", "reportAnalysisWinratesAs=BLACK"]
RULES = {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False, "hasButton": False, "whiteHandicapBonus": "0", "friendlyPassOk": False}
def game(f):
    """A 9x9 match game: (tengen's colour, komi, result, moves as [colour, vertex])."""
    s = open(f).read(); pb = re.search(r'PB\[([^\]]*)\]', s).group(1); km = float(re.search(r'KM\[([^\]]*)\]', s).group(1))
    t = 'B' if pb.startswith('tengen') else 'W'
    res = re.search(r'RE\[([^\]]*)\]', s).group(1)
    mv = re.findall(r";([BW])\[([a-z]{0,2})\]", s)
    cols = "ABCDEFGHJ"
    moves = [[c, "pass" if m == "" else cols[ord(m[0]) - 97] + str(9 - (ord(m[1]) - 97))] for c, m in mv]
    return t, km, res, moves
def judge_turns(k, moves, komi, visits):
    """KataGo's analysis of every turn of a game: {turn: response}."""
    q = {"id": "g", "moves": moves, "rules": RULES, "komi": komi, "boardXSize": 9, "boardYSize": 9, "maxVisits": visits, "analyzeTurns": list(range(len(moves) + 1))}
    k.stdin.write(json.dumps(q) + "\n"); k.stdin.flush()
    res = {}
    while len(res) < len(moves) + 1:
        r = json.loads(k.stdout.readline())
        if "error" in r: raise RuntimeError(str(r))
        res[r["turnNumber"]] = r
    return res
def positions(n):
    out = []
    for f in sorted(glob.glob(GAMES + "/*.sgf")):
        s = open(f).read()
        mv = re.findall(r";([BW])\[([a-z]{0,2})\]", s)
        cols = "ABCDEFGHJ"
        def g(c, m):
            if m == "" : return [c, "pass"]
            x = ord(m[0]) - 97; y = ord(m[1]) - 97
            return [c, cols[x] + str(9 - y)]
        moves = [g(c, m) for c, m in mv]
        for t in (6, 14, 22, 30):
            if t < len(moves): out.append((f.split("/")[-1], moves[:t]))
    return out[:n]
def run(kover, tparams, n=24, tag=""):
    k = kata(os.path.join(HERE, "katago-analysis-base.cfg"), kover); t = tengen(tparams)
    rules = {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False, "hasButton": False, "whiteHandicapBonus": "0", "friendlyPassOk": False}
    same_top = 0; l1 = 0.0; rows = []
    for i, (name, moves) in enumerate(positions(n)):
        q = {"id": f"q{i}", "moves": moves, "rules": rules, "komi": 7, "boardXSize": 9, "boardYSize": 9, "maxVisits": 64}
        a = ask(k, q); b = ask(t, q)
        va = {m["move"]: m["visits"] for m in a["moveInfos"]}; vb = {m["move"]: m["visits"] for m in b["moveInfos"]}
        sa = sum(va.values()); sb = sum(vb.values())
        keys = set(va) | set(vb)
        d = sum(abs(va.get(x, 0) / sa - vb.get(x, 0) / sb) for x in keys) / 2
        ta = max(va, key=va.get); tb = max(vb, key=vb.get)
        same_top += ta == tb; l1 += d
        rows.append(f"{name} t={len(moves)} kata {ta}:{va[ta]} ({sa}) u={a['rootInfo'].get('utility',0):+.3f} | tengen {tb}:{vb[tb]} ({sb}) u={b['rootInfo'].get('utility',0):+.3f} | tv {d:.2f}")
    k.stdin.close(); t.stdin.close(); k.kill(); t.kill()
    print(f"== {tag}: same top move {same_top}/{len(rows)}, mean total-variation distance of visit shares {l1/len(rows):.3f}")
    return rows
if __name__ == "__main__":
    rows = run([], ["score-utility=0", "lcb-check=false"], n=int(sys.argv[1]) if len(sys.argv) > 1 else 12, tag="base")
    print("\n".join(rows))
