//! Named search parameters, so a user (or a match script comparing two
//! settings) can change the search from the command line without a
//! rebuild, the way KataGo's `-override-config` does:
//! `tengen gtp --search-param cpuct-init=1.1 --search-param fpu-reduction=0.25`.
//!
//! [`set`] parses one `KEY=VALUE` onto a [`SearchConfig`]; [`NAMES`] lists
//! the keys with what they mean. Values are checked: a bad key or value
//! is an error naming the accepted ones, never a silent default.

use super::SearchConfig;

/// Every key [`set`] accepts, with its meaning.
pub const NAMES: &[(&str, &str)] = &[
    ("cpuct-init", "exploration constant at few visits (c_init)"),
    (
        "cpuct-log",
        "growth of the exploration constant with visits",
    ),
    ("cpuct-base", "visits at which the growth sets in"),
    (
        "fpu-reduction",
        "first-play urgency reduction inside the tree",
    ),
    (
        "root-fpu-reduction",
        "first-play urgency reduction at the root",
    ),
    ("virtual-loss", "losses counted per in-flight visit"),
    ("score-utility", "weight of the score lead in the utility"),
    (
        "cpuct-stdev-scale",
        "exploration scaled by each node's spread of values",
    ),
    (
        "dynamic-score-utility",
        "weight of a score term centred on the root's expected score",
    ),
    (
        "lcb-check",
        "choose the final move by its lower confidence bound (true/false)",
    ),
    ("lcb-z", "standard errors below the mean for that bound"),
    (
        "play-pruning",
        "at a temperature, choose by visits less those that were only exploration (KataGo's play selection; true/false)",
    ),
    (
        "lcb-min-fraction",
        "share of the top move's visits a move needs to be chosen by it",
    ),
    (
        "wide-root-noise",
        "wider root exploration (KataGo's wideRootNoise)",
    ),
    (
        "policy-optimism",
        "blend towards the net's optimistic policy head inside the tree (0-1; default 1)",
    ),
    (
        "root-policy-optimism",
        "the same blend at the root (0-1; default 0.2)",
    ),
    (
        "random-symmetry",
        "each evaluation under a random symmetry of the board (KataGo's nnRandomize; true/false)",
    ),
    (
        "value-weight-exponent",
        "node values from their children, worse children weighing less (KataGo: 0.25)",
    ),
    (
        "uncertainty-coeff",
        "weigh evaluations by the net's short-term error estimate (KataGo: 0.25; 0 off)",
    ),
    (
        "uncertainty-max-weight",
        "the most a sure evaluation weighs (KataGo: 8)",
    ),
    (
        "fpu-parent-pow",
        "an untried move's first-play value leans on the node's own evaluation until this power of the tried policy mass is high (KataGo: 2; 0 off)",
    ),
    (
        "subtree-bias",
        "correct each evaluation by this share of what the subtrees of nodes with the same local shape found (KataGo: 0.45; 0 off)",
    ),
    (
        "bar-refused-pass",
        "search no pass at the root where the end-of-game rules would not pass anyway (true/false; default false)",
    ),
    (
        "explore-by-weight",
        "exploration scaled by the children's summed weight, not the node's visits (KataGo's PUCT; true/false; default false)",
    ),
    (
        "tree-reuse",
        "keep the subtree of the moves played since the last search (true/false; default true)",
    ),
    (
        "noise-pruning",
        "a child with more visits than its prior and value justify counts less in its parent's value; the utility scale (KataGo: 0.15; 0 off)",
    ),
    (
        "subtree-bias-exponent",
        "how a node's share in that correction grows with its visits (KataGo: 0.85)",
    ),
    (
        "temperature-halflife",
        "the move-choice temperature halves every this many moves on 19x19 (scaled by 19 / the board's side) towards temperature-end (KataGo: 19; 0: it holds, the default)",
    ),
    (
        "temperature-end",
        "what a decaying temperature decays towards (KataGo: 0.1; default 0)",
    ),
];

fn number(key: &str, value: &str, lo: f32, hi: f32) -> Result<f32, String> {
    let v: f32 = value
        .trim()
        .parse()
        .map_err(|_| format!("search parameter {key}: '{value}' is not a number"))?;
    if !v.is_finite() || v < lo || v > hi {
        return Err(format!(
            "search parameter {key}: {value} is outside [{lo}, {hi}]"
        ));
    }
    Ok(v)
}

fn flag(key: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(format!(
            "search parameter {key}: '{value}' is not true or false"
        )),
    }
}

/// Applies `KEY=VALUE` to `cfg`.
pub fn set(cfg: &mut SearchConfig, assignment: &str) -> Result<(), String> {
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| format!("search parameter '{assignment}': expected KEY=VALUE"))?;
    let key = key.trim().to_ascii_lowercase().replace('_', "-");
    let k = key.as_str();
    match k {
        "cpuct-init" => cfg.c_puct_init = number(k, value, 0.0, 100.0)?,
        "cpuct-log" => cfg.c_puct_log = number(k, value, 0.0, 100.0)?,
        "cpuct-base" => cfg.c_puct_base = number(k, value, 1.0, 1e9)?,
        "fpu-reduction" => cfg.fpu_reduction = number(k, value, -2.0, 2.0)?,
        "root-fpu-reduction" => cfg.root_fpu_reduction = number(k, value, -2.0, 2.0)?,
        "virtual-loss" => cfg.virtual_loss = number(k, value, 0.0, 100.0)?,
        "score-utility" => cfg.score_utility = number(k, value, 0.0, 10.0)?,
        "cpuct-stdev-scale" => cfg.cpuct_stdev_scale = number(k, value, 0.0, 10.0)?,
        "dynamic-score-utility" => cfg.dynamic_score_utility = number(k, value, 0.0, 10.0)?,
        "lcb-z" => cfg.lcb_z = number(k, value, 0.0, 10.0)?,
        "lcb-min-fraction" => cfg.lcb_min_fraction = number(k, value, 0.0, 1.0)?,
        "wide-root-noise" => cfg.wide_root_noise = number(k, value, 0.0, 10.0)?,
        "policy-optimism" => cfg.policy_optimism = number(k, value, 0.0, 1.0)?,
        "root-policy-optimism" => cfg.root_policy_optimism = number(k, value, 0.0, 1.0)?,
        "value-weight-exponent" => cfg.value_weight_exponent = number(k, value, 0.0, 4.0)?,
        "uncertainty-coeff" => cfg.uncertainty_coeff = number(k, value, 0.0, 10.0)?,
        "fpu-parent-pow" => cfg.fpu_parent_pow = number(k, value, 0.0, 10.0)?,
        "uncertainty-max-weight" => cfg.uncertainty_max_weight = number(k, value, 0.01, 1000.0)?,
        "subtree-bias" => cfg.subtree_bias = number(k, value, 0.0, 1.0)?,
        "subtree-bias-exponent" => cfg.subtree_bias_exponent = number(k, value, 0.0, 2.0)?,
        "noise-pruning" => cfg.noise_prune = number(k, value, 0.0, 10.0)?,
        "temperature-halflife" => cfg.temperature_halflife = number(k, value, 0.0, 1e6)?,
        "temperature-end" => cfg.temperature_end = number(k, value, 0.0, 10.0)?,
        "lcb-check" => cfg.lcb_check = flag(k, value)?,
        "play-pruning" => cfg.play_pruning = flag(k, value)?,
        "random-symmetry" => cfg.random_symmetry = flag(k, value)?,
        "bar-refused-pass" => cfg.bar_refused_pass = flag(k, value)?,
        "tree-reuse" => cfg.tree_reuse = flag(k, value)?,
        "explore-by-weight" => cfg.child_weight_explore = flag(k, value)?,
        _ => {
            let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "unknown search parameter '{key}' (known: {})",
                names.join(", ")
            ));
        }
    }
    Ok(())
}

/// Applies every assignment in order (a later one wins).
pub fn apply(cfg: &mut SearchConfig, assignments: &[String]) -> Result<(), String> {
    assignments.iter().try_for_each(|a| set(cfg, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_key_is_accepted_and_changes_the_config() {
        for (name, _) in NAMES {
            let mut cfg = SearchConfig::default();
            let value = match *name {
                "lcb-check" | "play-pruning" | "tree-reuse" => "false",
                "random-symmetry" | "bar-refused-pass" | "explore-by-weight" => "true",
                "cpuct-base" => "750",
                _ => "0.75",
            };
            set(&mut cfg, &format!("{name}={value}")).unwrap();
            assert_ne!(cfg, SearchConfig::default(), "{name}");
        }
    }

    #[test]
    fn a_decaying_temperature_follows_katago_s_schedule() {
        let mut cfg = SearchConfig {
            temperature: 0.8,
            temperature_moves: 1000,
            ..SearchConfig::default()
        };
        // No half-life: the temperature holds, then stops.
        assert_eq!(cfg.temperature_at(0, 9), 0.8);
        assert_eq!(cfg.temperature_at(999, 9), 0.8);
        assert_eq!(cfg.temperature_at(1000, 9), 0.0);
        apply(
            &mut cfg,
            &[
                "temperature-halflife=19".to_string(),
                "temperature-end=0.1".to_string(),
            ],
        )
        .unwrap();
        // KataGo's GTP schedule: one half-life every 19 moves on 19x19,
        // every 9 on 9x9.
        let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
        assert!(close(cfg.temperature_at(0, 9), 0.8));
        assert!(close(cfg.temperature_at(9, 9), 0.45));
        assert!(close(cfg.temperature_at(18, 9), 0.275));
        assert!(close(cfg.temperature_at(19, 19), 0.45));
        assert!(cfg.temperature_at(200, 9) > 0.1 && cfg.temperature_at(200, 9) < 0.1001);
        assert_eq!(cfg.temperature_at(1000, 9), 0.0);
    }

    #[test]
    fn bad_assignments_are_errors_that_say_why() {
        let mut cfg = SearchConfig::default();
        for (bad, says) in [
            ("cpuct-init", "KEY=VALUE"),
            ("cpuct=1", "unknown search parameter"),
            ("cpuct-init=abc", "not a number"),
            ("cpuct-init=NaN", "outside"),
            ("lcb-min-fraction=2", "outside"),
            ("lcb-check=maybe", "true or false"),
        ] {
            let e = set(&mut cfg, bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert_eq!(
            cfg,
            SearchConfig::default(),
            "failed assignments change nothing"
        );
        apply(
            &mut cfg,
            &["CPUCT_INIT=1.5".to_string(), "cpuct-init=2".to_string()],
        )
        .unwrap();
        assert_eq!(cfg.c_puct_init, 2.0);
    }
}
