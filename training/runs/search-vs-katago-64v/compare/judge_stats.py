"""Every ply of every game in a folder scored by KataGo's analysis engine
(full search settings, VISITS visits): what each side's moves cost, in
points (the judge's score lead) and winrate, by phase of the game.
usage: KATAGO=... KATAGO_NET=... python3 judge_stats.py VISITS OUT.jsonl GAME.sgf ...
Appends one JSON line per game to OUT.jsonl (skips games already there);
`python3 judge_stats.py summary OUT.jsonl ...` prints the table."""
import cmp, sys, json, os, statistics as st
PHASES = [(0, 8), (8, 20), (20, 40), (40, 1000)]
def summary(paths):
    rows = [json.loads(l) for p in paths for l in open(p)]
    print(f"{len(rows)} games")
    for who in ("tengen", "KataGo"):
        for lo, hi in PHASES:
            pts = [c["pts"] for g in rows for c in g["costs"] if c["who"] == who and lo <= c["ply"] < hi]
            wr = [c["wr"] for g in rows for c in g["costs"] if c["who"] == who and lo <= c["ply"] < hi]
            big = sum(1 for x in pts if x > 3)
            if pts:
                print(f"{who:7s} plies {lo:3d}-{hi:<4d} moves {len(pts):4d}  mean cost {st.mean(pts):+.2f} pts  "
                      f"{st.mean(wr):+.3f} wr  moves costing > 3 pts: {big} ({100 * big / len(pts):.1f}%)")
    for res in ("win", "loss", "draw"):
        gs = [g for g in rows if g["result"] == res]
        if not gs: continue
        t = [c["pts"] for g in gs for c in g["costs"] if c["who"] == "tengen"]
        k = [c["pts"] for g in gs for c in g["costs"] if c["who"] == "KataGo"]
        print(f"games tengen {dict(win='won', loss='lost', draw='drew')[res]}: {len(gs)}; mean cost per move tengen {st.mean(t):+.2f}, KataGo {st.mean(k):+.2f}")
if sys.argv[1] == "summary":
    summary(sys.argv[2:]); sys.exit()
visits = int(sys.argv[1]); out = sys.argv[2]; files = sys.argv[3:]
done = set()
if os.path.exists(out):
    done = {json.loads(l)["file"] for l in open(out)}
k = cmp.kata(os.path.join(cmp.HERE, "katago-analysis-base.cfg"), cmp.JUDGE + ["logDir=/tmp/judge-logs"])
for f in files:
    name = os.path.relpath(f)
    if name in done: continue
    t, km, re_, moves = cmp.game(f)
    result = "draw" if re_ in ("0", "Draw") else ("win" if re_.startswith(t) else "loss")
    res = cmp.judge_turns(k, moves, km, visits)
    wr = [res[i]["rootInfo"]["winrate"] for i in range(len(moves) + 1)]  # Black's
    lead = [res[i]["rootInfo"]["scoreLead"] for i in range(len(moves) + 1)]  # Black's
    costs = []
    for i, (c, m) in enumerate(moves):
        sgn = 1 if c == 'B' else -1
        costs.append({"ply": i, "who": "tengen" if c == t else "KataGo", "move": m,
                      "pts": sgn * (lead[i] - lead[i + 1]), "wr": sgn * (wr[i] - wr[i + 1])})
    with open(out, "a") as o:
        o.write(json.dumps({"file": name, "tengen": t, "komi": km, "result": result, "visits": visits, "black_wr": wr, "black_lead": lead, "costs": costs}) + "\n")
    print(name, result, flush=True)
