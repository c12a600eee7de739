import cmp, sys, json
n = int(sys.argv[1]); tparams = sys.argv[2:]
k = cmp.kata(cmp.os.path.join(cmp.HERE, "katago-analysis-base.cfg"), ["staticScoreUtilityFactor=0.1", "dynamicScoreUtilityFactor=0.3"]); t = cmp.tengen(["dynamic-score-utility=0.3"] + tparams)
rules = {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False, "hasButton": False, "whiteHandicapBonus": "0", "friendlyPassOk": False}
ks = ts = both_top_same = 0; rows = []
for i, (name, moves) in enumerate(cmp.positions(n)):
    q = {"id": f"q{i}", "moves": moves, "rules": rules, "komi": 7, "boardXSize": 9, "boardYSize": 9, "maxVisits": 64}
    a = cmp.ask(k, q); b = cmp.ask(t, q)
    def pick(r):
        mi = r["moveInfos"]; o0 = min(mi, key=lambda m: m["order"]); mv = max(mi, key=lambda m: m["visits"])
        return o0["move"], o0["visits"], mv["move"], mv["visits"]
    ka, kv, kt, ktv = pick(a); ta, tv, tt, ttv = pick(b)
    ks += ka != kt; ts += ta != tt; both_top_same += kt == tt
    if ka != kt or ta != tt:
        rows.append(f"{name} t={len(moves)} kata: chose {ka}({kv}) top {kt}({ktv}) | tengen: chose {ta}({tv}) top {tt}({ttv})")
print(f"positions {n}: kata's LCB changed the move {ks} times, tengen's {ts}; same most-visited move {both_top_same}")
print("\n".join(rows))
