//! Self-play settings, and the rules, komi and board each game is played
//! under ([`SelfplayConfig::draw_rules`]; the module docs of
//! [`super`] say why).

use rand::Rng;
use tengen::rules::{Ruleset, Scoring};

/// Self-play settings.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SelfplayConfig {
    /// Games to play in this run.
    pub games: usize,
    /// Games played at once (worker threads sharing the evaluator).
    pub parallel: usize,
    pub visits_full: u64,
    pub visits_fast: u64,
    /// Probability of a full search per move.
    pub full_prob: f32,
    pub min_size: usize,
    pub max_size: usize,
    /// Komi range: every drawn komi is clamped to it, and a `komi_wide`
    /// share of games draws uniformly from it.
    pub min_komi: f32,
    pub max_komi: f32,
    /// Normal spread around the fair komi (0: always the fair komi, or a
    /// uniform draw from the range when `komi_wide` is 1).
    pub komi_stdev: f32,
    /// Share of games with komi uniform over `[min_komi, max_komi]`.
    pub komi_wide: f32,
    /// Share of games with a whole-point komi (the rest: x.5).
    pub komi_integer: f32,
    /// Share of games under Japanese rules (territory scoring).
    pub territory_prob: f32,
    /// Share of the area-scored games under Tromp-Taylor, New Zealand or
    /// AGA rules instead of Chinese (see the module docs).
    #[serde(default)]
    pub area_variants: f32,
    /// Share of games whose first moves come from the raw policy.
    pub opening_prob: f32,
    /// At most this many such moves on 9×9 (scaled by board area).
    pub opening_max: usize,
    /// Root Dirichlet noise on full searches.
    pub noise: bool,
    pub temp_start: f32,
    pub temp_end: f32,
    /// Temperature half-life in moves on 19×19 (scaled by area).
    pub temp_halflife: f32,
    /// Resign when the winrate stays below this (None: never).
    pub resign_threshold: Option<f32>,
    pub resign_consecutive: u32,
    /// Fraction of games that never resign.
    pub resign_check_fraction: f32,
    /// Instead of resigning, play the decided game out to the end with
    /// plain searches of this many visits, recording no policy targets
    /// (0: resign). Resigned games teach the score and ownership heads
    /// nothing, and their result is the search's judgement: with a net
    /// blind to komi, outcomes and the kept scores came out independent
    /// of komi (see the module docs).
    #[serde(default)]
    pub decided_visits: u32,
    /// KataGo's forced-playout constant `k` for full searches, with
    /// policy-target pruning (0: off).
    pub forced_k: f32,
    /// Games stop after `max_moves_factor * size * size` moves.
    pub max_moves_factor: f32,
    /// Games per shard file.
    pub games_per_shard: usize,
    /// Leaves a search gathers per evaluator call.
    pub batch_size: usize,
    /// Evaluator queues working at once (games split among them): 2 on
    /// two cores lets two batches run at the same time.
    #[serde(default = "one")]
    pub eval_lanes: usize,
    pub seed: u64,
    /// Full searches are Gumbel root searches over this many sampled moves
    /// (`None`: off; see the module docs).
    #[serde(default)]
    pub gumbel_m: Option<usize>,
    /// The Gumbel search's `c_scale` (σ(q) = (c_visit + max N) · c_scale ·
    /// q): 0.1 as in DeepMind's mctx; the paper's 1.0 makes the improved
    /// policy nearly one-hot at these visit counts.
    #[serde(default = "default_c_scale")]
    pub gumbel_c_scale: f32,
    /// The search's dynamic score utility (KataGo's
    /// `dynamicScoreUtilityFactor`: a score term centred on the root's
    /// expected score, so a side whose game the komi has already decided
    /// still plays for points instead of passing); 0: off.
    #[serde(default)]
    pub dynamic_score_utility: f32,
    /// The least share of decided positions that keep their policy target
    /// (KataGo's `reducedVisitsWeight`; see [`decided_policy_weight`]);
    /// 1: every position keeps it.
    #[serde(default = "one_f32")]
    pub decided_policy_weight: f32,
}

fn one_f32() -> f32 {
    1.0
}

/// The weight of a position's policy target, from its root winrate `w`:
/// 1 while `w` is within 5–95%, falling with the square of how far past
/// that it is to `min` at 0 or 1 (KataGo's reduced target weight in
/// decided games). Once the game is decided every move wins or loses
/// alike, the search's choice carries no information about good moves,
/// and what it learns there is harmful: in `9x9-rl-gumbel-v2`'s games
/// under territory scoring the side that the komi had already beaten
/// passed on the empty board, and its nets came to put 97% of the policy
/// on a pass when losing.
pub fn decided_policy_weight(w: f32, min: f32) -> f32 {
    let extreme = (2.0 * w - 1.0).abs();
    let through = ((extreme - 0.9) / 0.1).clamp(0.0, 1.0);
    1.0 + (min - 1.0) * through * through
}

fn one() -> usize {
    1
}

fn default_c_scale() -> f32 {
    0.1
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            games: 16,
            parallel: 8,
            visits_full: 32,
            visits_fast: 40,
            full_prob: 1.0,
            min_size: 9,
            max_size: 9,
            min_komi: -10.0,
            max_komi: 20.0,
            komi_stdev: 3.0,
            komi_wide: 0.25,
            komi_integer: 0.5,
            territory_prob: 0.25,
            area_variants: 0.25,
            opening_prob: 0.3,
            opening_max: 4,
            noise: true,
            temp_start: 0.8,
            temp_end: 0.2,
            temp_halflife: 19.0,
            resign_threshold: Some(0.05),
            resign_consecutive: 3,
            resign_check_fraction: 0.1,
            decided_visits: 8,
            forced_k: 2.0,
            max_moves_factor: 2.0,
            games_per_shard: 16,
            batch_size: 8,
            eval_lanes: 1,
            seed: 1,
            gumbel_m: Some(16),
            gumbel_c_scale: default_c_scale(),
            dynamic_score_utility: 0.0,
            decided_policy_weight: 1.0,
        }
    }
}

impl SelfplayConfig {
    /// Rejects impossible settings with a reason.
    pub fn check(&self) -> Result<(), String> {
        if !(2..=19).contains(&self.min_size)
            || !(2..=19).contains(&self.max_size)
            || self.min_size > self.max_size
        {
            return Err("board sizes must satisfy 2 <= min <= max <= 19".into());
        }
        if self.visits_full == 0 || self.visits_fast == 0 {
            return Err("visits must be at least 1".into());
        }
        for (name, p) in [
            ("full_prob", self.full_prob),
            ("komi_wide", self.komi_wide),
            ("komi_integer", self.komi_integer),
            ("territory_prob", self.territory_prob),
            ("area_variants", self.area_variants),
            ("opening_prob", self.opening_prob),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("{name} must be in [0, 1]"));
            }
        }
        if self.gumbel_m == Some(0) {
            return Err("gumbel_m must be at least 1".into());
        }
        if !(self.gumbel_c_scale > 0.0 && self.gumbel_c_scale <= 100.0) {
            return Err("gumbel_c_scale must be in (0, 100]".into());
        }
        if !(self.komi_stdev >= 0.0 && self.komi_stdev <= 50.0) {
            return Err("komi_stdev must be in [0, 50]".into());
        }
        if !(self.min_komi <= self.max_komi
            && self.min_komi.abs() <= 150.0
            && self.max_komi.abs() <= 150.0)
        {
            return Err("komi range must be ordered and within ±150".into());
        }
        if self.parallel == 0 || self.games_per_shard == 0 || self.batch_size == 0 {
            return Err("parallel, games_per_shard and batch_size must be at least 1".into());
        }
        if !(self.temp_start >= 0.0 && self.temp_end >= 0.0 && self.temp_halflife > 0.0) {
            return Err("temperatures must be >= 0 and the half-life > 0".into());
        }
        Ok(())
    }
}

/// KataGo's fair komi for a board of `size` under `scoring` (9×9 and up;
/// smaller boards favour Black by more, and get the range's draw).
pub fn fair_komi(size: usize, scoring: Scoring) -> f32 {
    let area = if size >= 9 { 7.0 } else { 9.0 };
    match scoring {
        Scoring::Area => area,
        Scoring::Territory => area - 1.0,
    }
}

impl SelfplayConfig {
    /// The rules of one game of `size` (see the module docs), drawn with
    /// `rng`.
    pub fn draw_rules(&self, size: usize, rng: &mut impl Rng) -> Ruleset {
        let base = if rng.random::<f32>() < self.territory_prob {
            Ruleset::japanese()
        } else if self.area_variants > 0.0 && rng.random::<f32>() < self.area_variants {
            // No draw at all when the share is 0, so that runs begun
            // without variants resume with the very same rules.
            let name = ["tromp-taylor", "nz", "aga"][rng.random_range(0..3)];
            Ruleset::from_name(name).unwrap_or_else(Ruleset::chinese)
        } else {
            Ruleset::chinese()
        };
        if self.min_komi == self.max_komi {
            return base.with_komi(self.min_komi);
        }
        let komi = if rng.random::<f32>() < self.komi_wide {
            rng.random_range(self.min_komi..=self.max_komi)
        } else {
            // Box-Muller: one standard normal draw.
            let u1 = rng.random::<f32>().max(1e-7);
            let u2 = rng.random::<f32>();
            let z = (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos();
            fair_komi(size, base.scoring) + self.komi_stdev * z
        };
        let komi = komi.clamp(self.min_komi, self.max_komi);
        let komi = if rng.random::<f32>() < self.komi_integer {
            komi.round()
        } else {
            komi.floor() + 0.5
        };
        base.with_komi(komi.clamp(self.min_komi.ceil() - 0.5, self.max_komi.floor() + 0.5))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn decided_positions_keep_less_policy() {
        use super::decided_policy_weight as w;
        assert_eq!(w(0.5, 0.1), 1.0);
        assert_eq!(w(0.95, 0.1), 1.0);
        assert_eq!(w(0.05, 0.1), 1.0);
        assert!((w(1.0, 0.1) - 0.1).abs() < 1e-6);
        assert!((w(0.0, 0.1) - 0.1).abs() < 1e-6);
        // Halfway past the threshold: a quarter of the way down.
        assert!((w(0.975, 0.1) - (1.0 - 0.9 * 0.25)).abs() < 1e-5);
        assert_eq!(w(0.0, 1.0), 1.0, "1 turns it off");
    }

    #[test]
    fn rules_cover_komi_and_scorings_around_the_fair_value() {
        let cfg = SelfplayConfig::default();
        let mut rng = StdRng::seed_from_u64(3);
        let draws: Vec<Ruleset> = (0..4000).map(|_| cfg.draw_rules(9, &mut rng)).collect();
        let territory = draws
            .iter()
            .filter(|r| r.scoring == Scoring::Territory)
            .count() as f64
            / 4000.0;
        assert!(
            (territory - 0.25).abs() < 0.03,
            "territory share {territory}"
        );
        assert!(draws
            .iter()
            .all(|r| r.scoring == Scoring::Area || r.ko == tengen::rules::KoRule::Simple));
        // A quarter of the area-scored games under another area ruleset,
        // each of the three about equally often.
        let area: Vec<&Ruleset> = draws
            .iter()
            .filter(|r| r.scoring == Scoring::Area)
            .collect();
        let share = |name: &str| {
            let std = Ruleset::from_name(name).unwrap();
            area.iter().filter(|r| r.with_komi(std.komi) == std).count() as f64 / area.len() as f64
        };
        for name in ["tromp-taylor", "nz", "aga"] {
            let s = share(name);
            assert!((s - 0.25 / 3.0).abs() < 0.025, "{name} share {s}");
        }
        assert!((share("chinese") - 0.75).abs() < 0.04);
        let komi: Vec<f32> = draws.iter().map(|r| r.komi).collect();
        assert!(komi.iter().all(|k| (-10.0..=20.0).contains(k)));
        assert!(
            komi.iter().all(|k| (k * 2.0).fract() == 0.0),
            "whole or half points"
        );
        let half = komi.iter().filter(|k| k.fract() != 0.0).count() as f64 / 4000.0;
        assert!((half - 0.5).abs() < 0.04, "half-point share {half}");
        // Most games near the fair komi of their scoring, some far off.
        let near = draws
            .iter()
            .filter(|r| (r.komi - fair_komi(9, r.scoring)).abs() <= 3.5)
            .count() as f64
            / 4000.0;
        assert!((0.5..0.8).contains(&near), "near share {near}");
        assert!(komi.iter().any(|&k| k <= -5.0) && komi.iter().any(|&k| k >= 15.0));
        // A fixed komi stays fixed.
        let fixed = SelfplayConfig {
            min_komi: 7.0,
            max_komi: 7.0,
            ..SelfplayConfig::default()
        };
        assert!((0..50).all(|_| fixed.draw_rules(9, &mut rng).komi == 7.0));
    }

    #[test]
    fn without_area_variants_the_draws_are_those_of_runs_begun_before_them() {
        // Runs started before the variants existed resume with
        // `area_variants` 0: their rules and komi must not change. The
        // draw as it was before the variants, step by step:
        fn before(cfg: &SelfplayConfig, rng: &mut StdRng) -> Ruleset {
            let base = if rng.random::<f32>() < cfg.territory_prob {
                Ruleset::japanese()
            } else {
                Ruleset::chinese()
            };
            let komi = if rng.random::<f32>() < cfg.komi_wide {
                rng.random_range(cfg.min_komi..=cfg.max_komi)
            } else {
                let u1 = rng.random::<f32>().max(1e-7);
                let u2 = rng.random::<f32>();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos();
                fair_komi(9, base.scoring) + cfg.komi_stdev * z
            };
            let komi = komi.clamp(cfg.min_komi, cfg.max_komi);
            let komi = if rng.random::<f32>() < cfg.komi_integer {
                komi.round()
            } else {
                komi.floor() + 0.5
            };
            base.with_komi(komi.clamp(cfg.min_komi.ceil() - 0.5, cfg.max_komi.floor() + 0.5))
        }
        let cfg = SelfplayConfig {
            area_variants: 0.0,
            ..SelfplayConfig::default()
        };
        let mut a = StdRng::seed_from_u64(9);
        let mut b = StdRng::seed_from_u64(9);
        for _ in 0..500 {
            assert_eq!(cfg.draw_rules(9, &mut a), before(&cfg, &mut b));
        }
    }
}
