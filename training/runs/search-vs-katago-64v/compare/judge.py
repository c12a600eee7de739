import cmp, sys
visits = int(sys.argv[1]); files = sys.argv[2:]
k = cmp.kata(cmp.os.path.join(cmp.HERE, "katago-analysis-base.cfg"), cmp.JUDGE)
for f in files:
    t, km, _, moves = cmp.game(f)
    res = cmp.judge_turns(k, moves, km, visits)
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
