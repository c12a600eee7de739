//! Training data in memory: samples from shards grouped by board size,
//! and batches drawn from them with random symmetries (augmentation).
//!
//! A batch holds one board size (the net runs at the board's own size).
//! Everything here is deterministic given the generator passed in.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::Rng;
use tengen::features::v7;
use tengen::net::symmetry::{dense_map, to_net};
use tengen::rules::{KoRule, Symmetry};

use super::augment::{counted, stones};
pub use super::augment::{
    jitter_komi_uncounted, shift_komi, shift_komi_in_place, shift_komi_policy_only,
    show_under_territory, vary_rules_in_place, KomiShift, RulesMix,
};
use crate::shard::{self, Sample, HAS_OWNERSHIP, HAS_POLICY, HAS_SCORE, HAS_VALUE, NO_MOVE};

/// Samples, by board size.
#[derive(Default)]
pub struct Dataset {
    pub samples: Vec<Sample>,
    /// Board size → indices into `samples`.
    by_size: BTreeMap<usize, Vec<usize>>,
    /// Board size → indices of the samples with at most
    /// [`OPENING_STONES`] stones on the board.
    openings: BTreeMap<usize, Vec<usize>>,
    /// Share of the draws of [`Dataset::random_batch`] taken from
    /// `openings` ([`Dataset::set_opening_share`]).
    opening_share: f32,
    /// (board size, territory scoring) → the mean board margin of the
    /// games' first positions ([`Dataset::pool_first_margins`]).
    first_margins: BTreeMap<(usize, bool), f32>,
}

/// Positions with at most this many stones count as openings for
/// [`Dataset::set_opening_share`].
pub const OPENING_STONES: usize = 3;

impl Dataset {
    /// Loads the shards in order.
    pub fn load(paths: &[PathBuf]) -> Result<Dataset, String> {
        let mut d = Dataset::default();
        for p in paths {
            for s in shard::read(p).map_err(|e| e.to_string())? {
                d.push(s);
            }
        }
        Ok(d)
    }

    pub fn from_samples(samples: Vec<Sample>) -> Dataset {
        let mut d = Dataset::default();
        samples.into_iter().for_each(|s| d.push(s));
        d
    }

    fn push(&mut self, s: Sample) {
        let i = self.samples.len();
        self.by_size.entry(s.size).or_default().push(i);
        if stones(&s) <= OPENING_STONES {
            self.openings.entry(s.size).or_default().push(i);
        }
        self.samples.push(s);
    }

    /// Takes a share `q` of the samples that [`Dataset::random_batch`]
    /// draws from the openings (positions with at most [`OPENING_STONES`]
    /// stones) of the batch's board size, the rest from all its samples
    /// as before. A game gives one empty-board position among its ~60, so
    /// each rules-and-komi combination of the komi shift and the rules mix
    /// sees the empty board a few dozen times in a run, and the net's lead
    /// there came out jagged under the rarest combinations (issue 15's
    /// empty 9×9 board under AGA rules, `9x9-territory-mix-v1`'s README).
    /// At 0 (the default) nothing extra is drawn, so runs saved before
    /// this draw the same batches.
    pub fn set_opening_share(&mut self, q: f32) {
        self.opening_share = q.clamp(0.0, 1.0);
    }

    /// Gives every counted game's first position (the empty board, no
    /// pass yet) the score target of the mean board margin (score less
    /// the player to move's komi) over all such positions of its board
    /// size and scoring, at its own komi, instead of its own game's
    /// margin; the value target stays the game's result. Every game starts
    /// from that one position, so the mean is the better estimate of its
    /// expected lead; one game's margin spreads by about 15 points on 9×9,
    /// and the komi shift and rules mix show each komi and rules
    /// combination a different few hundred of them, which left the empty
    /// board's lead jagged under the rarest combinations
    /// (`9x9-territory-mix-v1`'s README). Returns how many positions were
    /// pooled.
    pub fn pool_first_margins(&mut self) -> usize {
        let mut sums: BTreeMap<(usize, bool), (f64, usize)> = BTreeMap::new();
        for s in self.samples.iter().filter(|s| first_counted(s)) {
            let e = sums.entry((s.size, s.global[9] != 0.0)).or_default();
            e.0 += (s.score - v7::self_komi(&s.global)) as f64;
            e.1 += 1;
        }
        self.first_margins = sums
            .iter()
            .map(|(&k, &(sum, n))| (k, (sum / n as f64) as f32))
            .collect();
        sums.values().map(|&(_, n)| n).sum()
    }

    /// The number of opening positions ([`Dataset::set_opening_share`]).
    pub fn openings(&self) -> usize {
        self.openings.values().map(Vec::len).sum()
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// A random batch of `batch` samples of one board size (chosen in
    /// proportion to how many samples each size has), each under a random
    /// symmetry when `augment`, some at another komi under `komi`, and
    /// some under other ko and suicide rules under `rules`.
    pub fn random_batch(
        &self,
        batch: usize,
        augment: bool,
        komi: Option<KomiShift>,
        rules: Option<RulesMix>,
        rng: &mut StdRng,
    ) -> Option<Batch> {
        if self.samples.is_empty() || batch == 0 {
            return None;
        }
        let pick = rng.random_range(0..self.samples.len());
        let size = self.samples[pick].size;
        let pool = &self.by_size[&size];
        let openings = self
            .openings
            .get(&size)
            .filter(|o| self.opening_share > 0.0 && !o.is_empty());
        type Pick = (usize, Symmetry, Option<f32>, Option<(KoRule, bool)>, bool);
        let picks: Vec<Pick> = (0..batch)
            .map(|_| {
                let from = match openings {
                    Some(o) if rng.random::<f32>() < self.opening_share => o,
                    _ => pool,
                };
                let i = from[rng.random_range(0..from.len())];
                let sym = if augment {
                    Symmetry::ALL[rng.random_range(0..8)]
                } else {
                    Symmetry::IDENTITY
                };
                let now = v7::self_komi(&self.samples[i].global);
                let delta = komi.and_then(|k| k.draw(now, rng));
                let varied = rules.and_then(|r| r.draw(rng));
                let territory = rules.is_some_and(|r| r.draw_territory(rng));
                (i, sym, delta, varied, territory)
            })
            .collect();
        // Only the samples that change are copied.
        let changed: Vec<Option<Sample>> = picks
            .iter()
            .map(|&(i, _, d, r, territory)| {
                let base = &self.samples[i];
                let mut s = d.and_then(|d| shift_komi(base, d));
                if territory {
                    s = edited(s, base, show_under_territory);
                }
                if let Some((ko, suicide)) = r {
                    s = edited(s, base, |v| vary_rules_in_place(v, ko, suicide));
                }
                // Off (no pooled margins), this costs no board scan.
                let pooled = self.first_margins.get(&(size, base.global[9] != 0.0));
                if let Some(&m) = pooled.filter(|_| first_counted(base)) {
                    s = edited(s, base, |v| pooled_margin(v, m));
                }
                s
            })
            .collect();
        let rows: Vec<(&Sample, Symmetry)> = picks
            .iter()
            .zip(&changed)
            .map(|(&(i, sym, ..), s)| (s.as_ref().unwrap_or(&self.samples[i]), sym))
            .collect();
        Some(Batch::new(size, &rows))
    }

    /// Removes the pass's share from the policy targets of positions with
    /// fewer than `max_stones` stones on the board (either colour) and
    /// renormalises the rest; a target that was all pass is dropped (the
    /// other targets stay). In the opening a pass is never the best move
    /// under any rules: any move on an empty area is worth more than
    /// nothing. Self-play games that komi had decided still gave the pass
    /// a share there (all moves equally lost; `9x9-rules-mix-v1`'s README:
    /// a pass was the top target in 29% of the empty-board positions under
    /// territory scoring), and the net learned to pass on the empty board.
    pub fn drop_opening_passes(&mut self, max_stones: u32) -> Cleaned {
        let mut out = Cleaned::default();
        for s in &mut self.samples {
            if s.flags & HAS_POLICY == 0 || stones(s) >= max_stones as usize {
                continue;
            }
            let n = s.size * s.size;
            let pass = s.policy[n];
            if pass <= 0.0 {
                continue;
            }
            out.changed += 1;
            let rest = 1.0 - pass;
            if rest <= 1e-6 {
                s.policy.iter_mut().for_each(|p| *p = 0.0);
                s.flags &= !HAS_POLICY;
                out.dropped += 1;
            } else {
                s.policy[n] = 0.0;
                s.policy[..n].iter_mut().for_each(|p| *p /= rest);
            }
        }
        out
    }

    /// Consecutive batches covering the samples of each size in order,
    /// without augmentation (validation).
    pub fn sequential_batches(&self, batch: usize, max_batches: usize) -> Vec<Batch> {
        let mut out = Vec::new();
        for (&size, pool) in &self.by_size {
            for chunk in pool.chunks(batch.max(1)) {
                if out.len() >= max_batches {
                    return out;
                }
                let rows: Vec<(&Sample, Symmetry)> = chunk
                    .iter()
                    .map(|&i| (&self.samples[i], Symmetry::IDENTITY))
                    .collect();
                out.push(Batch::new(size, &rows));
            }
        }
        out
    }
}

/// A counted game's first position: the empty board, no pass yet.
fn first_counted(s: &Sample) -> bool {
    counted(s) && s.global[..5].iter().all(|&g| g == 0.0) && stones(s) == 0
}

/// Sets `s`'s score target to the board margin `m` at its (possibly
/// shifted) komi, where it still has one ([`Dataset::pool_first_margins`]).
fn pooled_margin(s: &mut Sample, m: f32) -> bool {
    if s.flags & HAS_SCORE == 0 {
        return false;
    }
    s.score = m + v7::self_komi(&s.global);
    true
}

/// What [`Dataset::drop_opening_passes`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Policy targets whose pass share was removed.
    pub changed: usize,
    /// Of those, targets that were all pass and so were dropped.
    pub dropped: usize,
}

/// `s` (or, where it is `None`, a copy of `base`) after `edit`; `None`
/// when there was no copy and `edit` changed nothing.
fn edited(
    s: Option<Sample>,
    base: &Sample,
    edit: impl FnOnce(&mut Sample) -> bool,
) -> Option<Sample> {
    let copied = s.is_some();
    let mut v = s.unwrap_or_else(|| base.clone());
    (edit(&mut v) || copied).then_some(v)
}

/// A batch as flat host arrays, ready to become tensors.
#[derive(Clone, Debug)]
pub struct Batch {
    pub size: usize,
    pub rows: usize,
    /// `[rows, SPATIAL, size, size]`.
    pub spatial: Vec<f32>,
    /// `[rows, GLOBAL]`.
    pub global: Vec<f32>,
    /// `[rows, n + 1]` and per-row weights.
    pub policy: Vec<f32>,
    pub policy_w: Vec<f32>,
    /// `[rows, n + 1]` one-hot opponent reply, weights.
    pub opp: Vec<f32>,
    pub opp_w: Vec<f32>,
    /// `[rows, 3]` win/loss/no-result, weights.
    pub value: Vec<f32>,
    pub value_w: Vec<f32>,
    /// `[rows]` score for the player to move, weights.
    pub score: Vec<f32>,
    pub score_w: Vec<f32>,
    /// `[rows, n]` in {-1, 0, 1}, weights.
    pub ownership: Vec<f32>,
    pub own_w: Vec<f32>,
}

impl Batch {
    /// Multiplies the rows' score and ownership weights.
    pub fn scale_aux(&mut self, score: f32, ownership: f32) {
        if score != 1.0 {
            self.score_w.iter_mut().for_each(|w| *w *= score);
        }
        if ownership != 1.0 {
            self.own_w.iter_mut().for_each(|w| *w *= ownership);
        }
    }

    /// Host arrays of `rows` (samples of board `size`, each under its
    /// symmetry).
    pub fn new(size: usize, rows: &[(&Sample, Symmetry)]) -> Batch {
        let n = size * size;
        let b = rows.len();
        let mut out = Batch {
            size,
            rows: b,
            spatial: vec![0.0; b * v7::SPATIAL * n],
            global: Vec::with_capacity(b * v7::GLOBAL),
            policy: vec![0.0; b * (n + 1)],
            policy_w: Vec::with_capacity(b),
            opp: vec![0.0; b * (n + 1)],
            opp_w: Vec::with_capacity(b),
            value: Vec::with_capacity(b * 3),
            value_w: Vec::with_capacity(b),
            score: Vec::with_capacity(b),
            score_w: Vec::with_capacity(b),
            ownership: vec![0.0; b * n],
            own_w: Vec::with_capacity(b),
        };
        let mut maps: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (r, (s, sym)) in rows.iter().enumerate() {
            let map = maps
                .entry(sym.index())
                .or_insert_with(|| dense_map(*sym, size));
            let sp = v7::SPATIAL * n;
            to_net(&s.spatial, &mut out.spatial[r * sp..(r + 1) * sp], map);
            out.global.extend(&s.global);
            let pol = &mut out.policy[r * (n + 1)..(r + 1) * (n + 1)];
            to_net(&s.policy[..n], &mut pol[..n], map);
            pol[n] = s.policy[n];
            let flag = |f: u8| if s.flags & f != 0 { 1.0 } else { 0.0 };
            out.policy_w.push(flag(HAS_POLICY));
            if s.opp_move != NO_MOVE {
                let m = s.opp_move as usize;
                let j = if m < n { map[m] } else { n };
                out.opp[r * (n + 1) + j] = 1.0;
                out.opp_w.push(1.0);
            } else {
                out.opp_w.push(0.0);
            }
            out.value.extend(match s.outcome {
                1 => [1.0, 0.0, 0.0],
                -1 => [0.0, 1.0, 0.0],
                _ => [0.5, 0.5, 0.0],
            });
            out.value_w.push(flag(HAS_VALUE));
            out.score.push(s.score);
            out.score_w.push(flag(HAS_SCORE));
            let own: Vec<f32> = s.ownership.iter().map(|&o| o as f32).collect();
            to_net(&own, &mut out.ownership[r * n..(r + 1) * n], map);
            out.own_w.push(flag(HAS_OWNERSHIP));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A counted 9×9 sample: the player to move has komi `self_komi` and
    /// won by `score` (area scoring unless `territory`).
    fn counted(self_komi: f32, score: f32, territory: bool) -> Sample {
        let n = 81;
        let mut global = vec![0.0; v7::GLOBAL];
        if territory {
            global[9] = 1.0;
        }
        v7::set_komi(&mut global, self_komi, 9);
        Sample {
            size: 9,
            flags: HAS_POLICY | HAS_VALUE | HAS_SCORE | HAS_OWNERSHIP,
            spatial: vec![0.0; v7::SPATIAL * n],
            global,
            policy: vec![1.0 / (n + 1) as f32; n + 1],
            opp_move: NO_MOVE,
            outcome: if score > 0.0 { 1 } else { -1 },
            score,
            ownership: vec![0; n],
        }
    }

    #[test]
    fn rules_are_only_ever_made_more_permissive() {
        // A Chinese sample (positional superko, no suicide) may be shown
        // under any rule; a Japanese one (simple ko) keeps simple ko.
        let mut chinese = counted(-7.0, 3.0, false);
        v7::set_ko_and_suicide(&mut chinese.global, KoRule::Positional, false);
        let mut japanese = counted(-6.5, 2.0, true);
        v7::set_ko_and_suicide(&mut japanese.global, KoRule::Simple, false);
        for ko in [KoRule::Simple, KoRule::Positional, KoRule::Situational] {
            for suicide in [false, true] {
                let mut c = chinese.clone();
                let changed = vary_rules_in_place(&mut c, ko, suicide);
                assert_eq!(v7::ko_and_suicide(&c.global), (ko, suicide));
                assert_eq!(changed, (ko, suicide) != (KoRule::Positional, false));
                let mut j = japanese.clone();
                vary_rules_in_place(&mut j, ko, suicide);
                assert_eq!(v7::ko_and_suicide(&j.global), (KoRule::Simple, suicide));
                // Nothing else moves: komi, scoring, targets.
                for (a, b) in [(&c, &chinese), (&j, &japanese)] {
                    for g in (0..v7::GLOBAL).filter(|g| !(6..=8).contains(g)) {
                        assert_eq!(a.global[g], b.global[g], "global {g}");
                    }
                    assert_eq!((a.score, a.outcome), (b.score, b.outcome));
                    assert_eq!(a.policy, b.policy);
                }
            }
        }
        // Situational superko may become simple ko, never positional.
        let mut s = chinese.clone();
        v7::set_ko_and_suicide(&mut s.global, KoRule::Situational, false);
        vary_rules_in_place(&mut s, KoRule::Positional, false);
        assert_eq!(v7::ko_and_suicide(&s.global).0, KoRule::Situational);
        vary_rules_in_place(&mut s, KoRule::Simple, false);
        assert_eq!(v7::ko_and_suicide(&s.global).0, KoRule::Simple);
    }

    /// The V7 features of `moves` played on 9×9 from the empty board,
    /// at komi 7, under `rules`.
    fn encoded(rules: tengen::rules::Ruleset, moves: &[&str]) -> (Vec<f32>, Vec<f32>) {
        use tengen::rules::{Color, Move, Position};
        let mut pos = Position::new(9, rules.with_komi(7.0)).unwrap();
        let mut played = Vec::new();
        let mut boards = Vec::new();
        for (k, m) in moves.iter().enumerate() {
            let color = if k % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let mv = Move::parse_gtp(m, 9).unwrap();
            boards.insert(0, pos.board().clone());
            pos.play(color, mv).unwrap();
            played.push((color, mv));
        }
        let mut spatial = vec![0.0; v7::SPATIAL * 81];
        let mut global = vec![0.0; v7::GLOBAL];
        let input = v7::V7Input {
            position: &pos,
            moves: &played,
            prev_boards: [boards.first(), boards.get(1)],
            white_handicap_bonus: 0.0,
            friendly_pass_ok: true,
        };
        v7::encode(&input, &mut spatial, &mut global);
        (spatial, global)
    }

    #[test]
    fn an_area_opening_shown_under_territory_is_the_japanese_encoding() {
        use tengen::rules::Ruleset;
        // The last one takes a ko: Black may not retake at E5 at once.
        let moves = ["C5", "E4", "D4", "E6", "D6", "F5", "E5", "D5"];
        for played in [&moves[..0], &moves[..4], &moves[..]] {
            let (spatial, global) = encoded(Ruleset::chinese(), played);
            let mut s = counted(0.0, 3.0, false);
            (s.spatial, s.global) = (spatial, global);
            assert!(show_under_territory(&mut s), "{played:?}");
            let (spatial, global) = encoded(Ruleset::japanese(), played);
            assert_eq!(s.global, global, "{played:?}");
            assert_eq!(s.spatial, spatial, "{played:?}");
            // The move targets stay, the count's targets go.
            assert_eq!(s.flags, HAS_POLICY);
            assert_eq!(s.policy, counted(0.0, 3.0, false).policy);
        }
        // Territory samples and endgame positions are left alone.
        let mut japanese = counted(6.5, 2.0, true);
        assert!(!show_under_territory(&mut japanese));
        let mut full = counted(-7.0, 3.0, false);
        full.spatial[81..81 + 41].fill(1.0);
        assert!(!show_under_territory(&mut full));
        assert_eq!(full.flags & HAS_VALUE, HAS_VALUE);
    }

    #[test]
    fn an_opening_share_draws_openings_that_often() {
        // 10 empty boards among 1,000 positions with 20 stones each.
        let mut samples = Vec::new();
        for k in 0..1000 {
            let mut s = counted(-7.0, k as f32 + 0.5, false);
            if k % 100 != 0 {
                s.spatial[81..81 + 20].fill(1.0);
            }
            samples.push(s);
        }
        let mut data = Dataset::from_samples(samples);
        assert_eq!(data.openings(), 10);
        let empty_rows = |data: &Dataset, seed: u64| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut n = 0;
            for _ in 0..50 {
                let b = data.random_batch(64, false, None, None, &mut rng).unwrap();
                let sp = v7::SPATIAL * 81;
                n += (0..b.rows)
                    .filter(|r| {
                        b.spatial[r * sp + 81..r * sp + 3 * 81]
                            .iter()
                            .all(|&x| x == 0.0)
                    })
                    .count();
            }
            n
        };
        let before = empty_rows(&data, 4);
        assert!(before < 100, "about 1% of 3,200 rows: {before}");
        data.set_opening_share(0.25);
        let after = empty_rows(&data, 4);
        // A quarter of the draws plus 1% of the rest: about 824 of 3,200.
        assert!((700..950).contains(&after), "{after}");
        data.set_opening_share(0.0);
        assert_eq!(empty_rows(&data, 4), before, "off draws as before");
    }

    #[test]
    fn first_positions_learn_the_mean_margin_at_their_komi() {
        // Three empty boards (Black to move at White's komi 7: self komi
        // −7) whose games ended +3, −5 and +11 for Black, one later position.
        let mut samples: Vec<Sample> = [3.0, -5.0, 11.0]
            .iter()
            .map(|&m| counted(-7.0, m - 7.0, false))
            .collect();
        let mut later = counted(-7.0, 4.0, false);
        later.spatial[81..81 + 6].fill(1.0);
        samples.push(later);
        let mut data = Dataset::from_samples(samples);
        assert_eq!(data.pool_first_margins(), 3);
        let mut rng = StdRng::seed_from_u64(2);
        let shift = KomiShift::from_flags(1.0, 10.0);
        for _ in 0..20 {
            let b = data.random_batch(8, false, shift, None, &mut rng).unwrap();
            for r in 0..b.rows {
                let komi = b.global[r * v7::GLOBAL + 5] * 20.0;
                let empty = b.spatial[r * v7::SPATIAL * 81 + 81..][..2 * 81]
                    .iter()
                    .all(|&x| x == 0.0);
                if empty {
                    // Mean margin 3 for Black, at whatever komi is shown.
                    assert!((b.score[r] - (3.0 + komi)).abs() < 1e-4, "{}", b.score[r]);
                } else {
                    // Later positions keep their own game's margin (+11).
                    assert!((b.score[r] - (11.0 + komi)).abs() < 1e-4, "{}", b.score[r]);
                }
            }
        }
    }

    #[test]
    fn the_territory_share_draws_nothing_when_off() {
        let mut a = StdRng::seed_from_u64(9);
        let mut b = StdRng::seed_from_u64(9);
        let off = RulesMix::from_flag(0.5).unwrap();
        assert!(!off.draw_territory(&mut a));
        assert_eq!(a.random::<u64>(), b.random::<u64>());
        let all = RulesMix::from_flags(0.0, 1.0).unwrap();
        assert!(all.draw_territory(&mut a));
        assert!(RulesMix::from_flags(0.0, 0.0).is_none());
    }

    #[test]
    fn a_rules_mix_draws_every_rule() {
        let mix = RulesMix::from_flag(1.0).unwrap();
        let mut rng = StdRng::seed_from_u64(5);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            seen.insert(mix.draw(&mut rng).map(|(k, s)| (format!("{k:?}"), s)));
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        assert!(RulesMix::from_flag(0.0).is_none());
    }

    /// A resigned game's position shown at another komi keeps only what
    /// komi does not change: the board and the move targets.
    #[test]
    fn an_uncounted_position_at_another_komi_keeps_only_its_move_targets() {
        let mut resigned = counted(-7.5, 4.0, false);
        resigned.flags &= !(HAS_SCORE | HAS_OWNERSHIP);
        assert!(shift_komi(&resigned, 3.0).is_none(), "no exact shift");
        let mut t = resigned.clone();
        shift_komi_policy_only(&mut t, 3.0);
        assert_eq!(v7::self_komi(&t.global), -4.5);
        let mut fresh = resigned.global.clone();
        v7::set_komi(&mut fresh, -4.5, 9);
        assert_eq!(t.global, fresh);
        assert_eq!(t.flags, HAS_POLICY);
        assert_eq!(
            (&t.spatial, &t.policy),
            (&resigned.spatial, &resigned.policy)
        );
        let b = Batch::new(9, &[(&t, Symmetry::IDENTITY)]);
        assert_eq!((b.value_w[0], b.score_w[0]), (0.0, 0.0));
        assert_eq!(b.policy_w[0], 1.0);
    }

    /// The jitter covers one period of the parity wave: under area
    /// scoring on 19×19, a resigned game at komi 6.5 shows both colours
    /// every wave value equally often, and keeps its value target.
    #[test]
    fn komi_jitter_balances_the_parity_wave_for_both_colours() {
        let k = KomiShift::from_flags(1.0, 12.0).unwrap().with_jitter(1.0);
        let mut rng = StdRng::seed_from_u64(9);
        let mut deltas = std::collections::BTreeMap::new();
        for _ in 0..4000 {
            *deltas
                .entry(k.jitter(&mut rng).map(|d| (d * 2.0) as i32))
                .or_insert(0) += 1;
        }
        let keys: Vec<_> = deltas.keys().copied().collect();
        assert_eq!(keys, [None, Some(-2), Some(-1), Some(1)], "{deltas:?}");
        assert!(
            deltas.values().all(|&n| (900..1100).contains(&n)),
            "{deltas:?}"
        );
        assert!(KomiShift::from_flags(1.0, 12.0)
            .unwrap()
            .jitter(&mut rng)
            .is_none());

        for own in [6.5f32, -6.5] {
            let mut waves = Vec::new();
            for delta in [-1.0, -0.5, 0.0, 0.5] {
                let mut g = vec![0.0; v7::GLOBAL];
                v7::set_komi(&mut g, own + delta, 19);
                waves.push(g[18]);
            }
            waves.sort_by(f32::total_cmp);
            assert_eq!(waves, [-0.5, 0.0, 0.0, 0.5], "komi {own}");
        }

        let mut resigned = counted(-7.5, 4.0, false);
        resigned.flags &= !(HAS_SCORE | HAS_OWNERSHIP);
        let mut t = resigned.clone();
        assert!(jitter_komi_uncounted(&mut t, -1.0));
        assert_eq!(v7::self_komi(&t.global), -8.5);
        assert_eq!(t.flags, resigned.flags);
        assert_eq!(t.outcome, resigned.outcome);
        let mut c = counted(-7.5, 4.0, false);
        assert!(
            !jitter_komi_uncounted(&mut c, -1.0),
            "counted: shift exactly"
        );
    }

    #[test]
    fn a_shift_moves_komi_score_and_outcome_together() {
        // White at komi 7 won by 3: the board gave White 4 fewer points.
        let s = counted(7.0, 3.0, false);
        assert_eq!(v7::self_komi(&s.global), 7.0);
        let t = shift_komi(&s, -4.5).unwrap();
        assert_eq!(v7::self_komi(&t.global), 2.5);
        assert_eq!(t.score, -1.5);
        assert_eq!(t.outcome, -1);
        // The parity wave is the one a fresh encoding at komi 2.5 gets.
        let mut fresh = s.global.clone();
        v7::set_komi(&mut fresh, 2.5, 9);
        assert_eq!(t.global, fresh);
        assert_ne!(t.global[18], s.global[18]);
        // The board and the policy target stay.
        assert_eq!((t.spatial, t.policy), (s.spatial.clone(), s.policy.clone()));
        // A shift onto the board's own margin is a draw.
        assert_eq!(shift_komi(&s, -3.0).unwrap().outcome, 0);
        // Territory scoring has no parity wave.
        let j = shift_komi(&counted(6.0, -2.0, true), 0.5).unwrap();
        assert_eq!((j.global[18], j.score, j.outcome), (0.0, -1.5, -1));
    }

    #[test]
    fn only_exactly_counted_samples_are_shifted() {
        let mut resigned = counted(7.0, 0.0, false);
        resigned.flags &= !(HAS_SCORE | HAS_OWNERSHIP);
        resigned.outcome = 1;
        assert!(shift_komi(&resigned, 2.0).is_none());
        // An outcome the score disagrees with (a time loss in a won count).
        let mut timed_out = counted(7.0, 5.0, false);
        timed_out.outcome = -1;
        assert!(shift_komi(&timed_out, 2.0).is_none());
    }

    /// Absolute shifts show Black's and White's samples at the same
    /// spread of komis, so the komi input says nothing of whose turn it is;
    /// the board's margin (score less komi) stays each sample's own.
    #[test]
    fn absolute_shifts_give_both_colours_the_same_komis() {
        let data =
            Dataset::from_samples(vec![counted(7.5, 2.5, false), counted(-7.5, -2.5, false)]);
        let shift = KomiShift::from_flags(1.0, 12.0).unwrap();
        assert!(shift.absolute);
        let mut rng = StdRng::seed_from_u64(11);
        // Komis seen for the sample of White (komi +7.5) and of Black.
        let (mut white, mut black) = (Vec::new(), Vec::new());
        for _ in 0..40 {
            let b = data
                .random_batch(32, false, Some(shift), None, &mut rng)
                .unwrap();
            for r in 0..b.rows {
                let k = v7::self_komi(&b.global[r * v7::GLOBAL..(r + 1) * v7::GLOBAL]);
                assert!((-12.0..=12.0).contains(&k), "komi {k}");
                let board = b.score[r] - k;
                if board == -5.0 {
                    white.push(k);
                } else {
                    assert_eq!(board, 5.0, "row {r}");
                    black.push(k);
                }
            }
        }
        let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
        assert!(white.len() > 500 && black.len() > 500);
        // Relative shifts would centre these on +7.5 and -7.5.
        assert!(
            mean(&white).abs() < 1.0,
            "White's mean komi {}",
            mean(&white)
        );
        assert!(
            mean(&black).abs() < 1.0,
            "Black's mean komi {}",
            mean(&black)
        );
    }

    #[test]
    fn shifted_batches_keep_what_the_board_gave() {
        let data =
            Dataset::from_samples(vec![counted(7.0, 3.0, false), counted(-7.0, -3.0, false)]);
        let shift = KomiShift {
            prob: 1.0,
            max: 6.0,
            absolute: false,
            uncounted: 0.0,
            jitter: 0.0,
        };
        let mut rng = StdRng::seed_from_u64(7);
        let mut shifted = 0;
        for _ in 0..20 {
            let b = data
                .random_batch(16, true, Some(shift), None, &mut rng)
                .unwrap();
            for r in 0..b.rows {
                let k = v7::self_komi(&b.global[r * v7::GLOBAL..(r + 1) * v7::GLOBAL]);
                // score - komi is the board's margin: -4 for the first
                // sample, +4 for the second.
                let board = b.score[r] - k;
                assert!(board == -4.0 || board == 4.0, "row {r}: {board}");
                assert!((-13.0..=13.0).contains(&k));
                let won = b.value[r * 3];
                assert_eq!(won == 1.0, b.score[r] > 0.0);
                shifted += usize::from(k.abs() != 7.0);
            }
        }
        assert!(shifted > 200, "{shifted} of 320 rows shifted");
        // Off: the batch is the samples as stored.
        let x = data.random_batch(64, true, None, None, &mut rng).unwrap();
        assert!(x
            .global
            .chunks(v7::GLOBAL)
            .all(|g| v7::self_komi(g).abs() == 7.0));
    }

    #[test]
    fn opening_passes_leave_the_policy_target_and_later_ones_stay() {
        let n = 81;
        let with_stones = |k: usize, pass: f32| {
            let mut s = counted(7.0, 3.0, true);
            for p in 0..k {
                // Alternate own (plane 1) and opponent (plane 2) stones.
                s.spatial[(1 + p % 2) * n + p] = 1.0;
            }
            s.policy = vec![0.0; n + 1];
            s.policy[40] = 1.0 - pass;
            s.policy[n] = pass;
            s
        };
        let mut data = Dataset::from_samples(vec![
            with_stones(0, 0.25),  // empty board, some pass: cleaned
            with_stones(19, 1.0),  // 19 stones, all pass: target dropped
            with_stones(20, 0.25), // 20 stones: kept as it is
            with_stones(3, 0.0),   // no pass share: nothing to do
        ]);
        let c = data.drop_opening_passes(20);
        assert_eq!(
            c,
            Cleaned {
                changed: 2,
                dropped: 1
            }
        );
        let s = &data.samples;
        assert_eq!(s[0].policy[n], 0.0);
        assert!((s[0].policy[40] - 1.0).abs() < 1e-6);
        assert!((s[0].policy.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(s[1].flags & HAS_POLICY, 0);
        assert!(s[1].policy.iter().all(|&p| p == 0.0));
        assert_ne!(s[1].flags & HAS_VALUE, 0, "the value target stays");
        assert_eq!(s[2].policy[n], 0.25);
        assert_eq!(s[3].policy[40], 1.0);
    }
}
