import cmp, sys, json, re
f = sys.argv[1]; plies = [int(x) for x in sys.argv[2].split(",")]; visits = int(sys.argv[3])
s = open(f).read(); km = float(re.search(r'KM\[([^\]]*)\]', s).group(1))
cols = "ABCDEFGHJ"
mv = re.findall(r";([BW])\[([a-z]{0,2})\]", s)
moves = [[c, "pass" if m == "" else cols[ord(m[0]) - 97] + str(9 - (ord(m[1]) - 97))] for c, m in mv]
rules = {"ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False, "hasButton": False, "whiteHandicapBonus": "0", "friendlyPassOk": False}
kfull = ["staticScoreUtilityFactor=0.1", "dynamicScoreUtilityFactor=0.3", "useGraphSearch=true", "valueWeightExponent=0.25", "useNoisePruning=true", "useUncertainty=true", "subtreeValueBiasFactor=0.45", "cpuctUtilityStdevScale=0.85", "fpuParentWeightByVisitedPolicy=true", "nnRandomize=true"]
engines = {"kata-full-rand": cmp.kata(cmp.os.path.join(cmp.HERE, "katago-analysis-base.cfg"), kfull), "tengen-rand": cmp.tengen(["dynamic-score-utility=0.3", "random-symmetry=true"])}
for p in plies:
    print(f"ply {p}: played {moves[p]}")
    for name, e in engines.items():
        picks = []
        for rep in range(2):
            q = {"id": f"p{p}r{rep}", "moves": moves[:p], "rules": rules, "komi": km, "boardXSize": 9, "boardYSize": 9, "maxVisits": visits}
            r = cmp.ask(e, q)
            o0 = min(r["moveInfos"], key=lambda m: m["order"])
            picks.append(f'{o0["move"]}({o0["visits"]})')
            if name.startswith("tengen"):
                # the analysis engine's search seed is fixed; clear its cache between repeats
                pass
        print(f"  {name}: {' '.join(picks)}")
    sys.stdout.flush()
