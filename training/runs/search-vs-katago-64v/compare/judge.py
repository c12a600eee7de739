import cmp, sys, json, re
visits = int(sys.argv[1]); files = sys.argv[2:]
k = cmp.kata(cmp.os.path.join(cmp.HERE, "katago-analysis-base.cfg"), ["staticScoreUtilityFactor=0.1", "dynamicScoreUtilityFactor=0.3", "useGraphSearch=true", "valueWeightExponent=0.25", "useNoisePruning=true", "useUncertainty=true", "subtreeValueBiasFactor=0.45", "cpuctUtilityStdevScale=0.85", "fpuParentWeightByVisitedPolicy=true", "reportAnalysisWinratesAs=BLACK"])
rules = {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False, "hasButton": False, "whiteHandicapBonus": "0", "friendlyPassOk": False}
cols = "ABCDEFGHJ"
for f in files:
    s = open(f).read(); pb = re.search(r'PB\[([^\]]*)\]', s).group(1); km = float(re.search(r'KM\[([^\]]*)\]', s).group(1))
    t = 'B' if pb.startswith('tengen') else 'W'
    mv = re.findall(r";([BW])\[([a-z]{0,2})\]", s)
    moves = [[c, "pass" if m == "" else cols[ord(m[0]) - 97] + str(9 - (ord(m[1]) - 97))] for c, m in mv]
    q = {"id": "g", "moves": moves, "rules": rules, "komi": km, "boardXSize": 9, "boardYSize": 9, "maxVisits": visits, "analyzeTurns": list(range(len(moves) + 1))}
    k.stdin.write(json.dumps(q) + "\n"); k.stdin.flush()
    res = {}
    while len(res) < len(moves) + 1:
        r = json.loads(k.stdout.readline())
        if "error" in r: print(r); break
        res[r["turnNumber"]] = r
    wr = [res[i]["rootInfo"]["winrate"] for i in range(len(moves) + 1)]  # Black's
    if t == 'W': wr = [1 - x for x in wr]
    drops = []
    for i, (c, m) in enumerate(moves):
        d = wr[i] - wr[i + 1]
        best = min(res[i]["moveInfos"], key=lambda x: x["order"])["move"]
        drops.append((d if c == t else -d, i, c, m, best, wr[i], wr[i + 1]))
    print(f"== {f} tengen {t} komi {km}: tengen's winrate by ply (KataGo {visits} visits)")
    print(" ".join(f"{x:.2f}" for x in wr))
    for d, i, c, m, best, a, b in sorted(drops, reverse=True)[:6]:
        who = "tengen" if c == t else "KataGo"
        print(f"  ply {i} {who} {c} {m} (judge's choice {best}): tengen's winrate {a:.2f} -> {b:.2f}, the mover lost {d:.2f}")
    sys.stdout.flush()
