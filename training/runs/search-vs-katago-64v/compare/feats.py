import cmp, sys
base_t = ["score-utility=0", "lcb-check=false"]
feats = {
 "vwe": (["valueWeightExponent=0.25"], ["value-weight-exponent=0.25"]),
 "stdev": (["cpuctUtilityStdevScale=0.85"], ["cpuct-stdev-scale=0.85"]),
 "fpu-parent": (["fpuParentWeightByVisitedPolicy=true"], ["fpu-parent-pow=2"]),
 "uncertainty": (["useUncertainty=true"], ["uncertainty-coeff=0.25"]),
 "noise-prune": (["useNoisePruning=true"], ["noise-pruning=0.15"]),
 "subtree-bias": (["subtreeValueBiasFactor=0.45"], ["subtree-bias=0.45"]),
 "score": (["staticScoreUtilityFactor=0.1", "dynamicScoreUtilityFactor=0.3"], ["score-utility=0.1", "dynamic-score-utility=0.3"]),
 "graph": (["useGraphSearch=true"], []),
}
n = int(sys.argv[1])
for name in sys.argv[2:]:
    k, t = feats[name]
    rows = cmp.run(k, base_t + t, n=n, tag=name)
    if "-v" in name or True:
        for r in rows: print("   ", r)
    sys.stdout.flush()
