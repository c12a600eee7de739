//! Training-data augmentation: one sample shown at another komi
//! ([`KomiShift`]) or under other rules ([`RulesMix`],
//! [`show_under_territory`]), with exactly the targets that stay known.
//! [`super::data::Dataset::random_batch`] draws these per sample.

use rand::rngs::StdRng;
use rand::Rng;
use tengen::features::v7;
use tengen::rules::KoRule;

use crate::shard::{Sample, HAS_OWNERSHIP, HAS_SCORE, HAS_VALUE};

/// Stones of either colour on the sample's board (V7 planes 1 and 2).
pub(crate) fn stones(s: &Sample) -> usize {
    let n = s.size * s.size;
    s.spatial[n..3 * n].iter().filter(|&&x| x > 0.5).count()
}

/// Komi augmentation. A counted game's final board does not depend on the
/// komi it was played at, so a position of it seen at komi `k + d` has the
/// score target `score + d` (from the player to move's view) and the
/// outcome that score's sign gives, exactly, as long as the same moves
/// would be played. Self-play draws komi around the fair value, so without
/// this the value and score heads see few positions where komi alone
/// differs, and their answer to komi comes out jagged and too flat (the
/// komi curves of `9x9-rl-gumbel-v2`). The policy target is kept: a
/// search at a komi a few points away mostly picks the same moves.
///
/// The komi a shifted sample is shown at is drawn the same way for both
/// colours (`absolute`): uniform over `-max..=max` from the player to
/// move's view. Shifting by `-max..=max` from the game's own komi instead
/// leaves Black's komi near −7 and White's near +7, so the komi input
/// tells a net which colour is to move, and so how the board is likely to
/// end (Black's margin on the board is about +7, White's −7): a net that
/// cannot count whose turn it is from the stones then learns about half a
/// point of lead per point of komi, the rest cancelled by that guess.
/// The human-data run's net answered komi at slopes of 0.4–0.6 in every
/// phase of its val games (KataGo's b10: 1.0) after 3,400 steps of
/// relative shifts up to 12 points, the confounded data's own slope.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KomiShift {
    /// Share of the drawn samples shifted.
    pub prob: f32,
    /// Shifted komis are whole or half points: the new komi uniform in
    /// `-max..=max` when `absolute`, else the game's own plus a shift
    /// uniform in `-max..=max`.
    pub max: f32,
    /// Configs and checkpoints written before this field shifted
    /// relatively, and resume that way.
    #[serde(default)]
    pub absolute: bool,
    /// Share of the drawn positions that cannot be shifted exactly (a
    /// resignation, a time loss: no count) shown at the drawn komi all
    /// the same, with their value and score targets dropped (the policy
    /// targets stay). Without it those positions keep their game's komi,
    /// and with it the hint of whose turn it is, for the value head.
    #[serde(default)]
    pub uncounted: f32,
    /// Share of the uncounted positions left at their game's komi that are
    /// moved by a komi jitter instead: one of −1, −½, 0 and +½ points,
    /// uniform, the value target kept (see [`KomiShift::jitter`]).
    #[serde(default)]
    pub jitter: f32,
}

impl KomiShift {
    /// From the `--komi-shift` share and `--komi-shift-max` points; `None`
    /// when the share is 0 (off). New settings draw absolute komis.
    pub fn from_flags(prob: f32, max: f32) -> Option<KomiShift> {
        (prob > 0.0).then_some(KomiShift {
            prob,
            max,
            absolute: true,
            uncounted: 0.0,
            jitter: 0.0,
        })
    }

    /// The same with a share `q` of the uncounted positions shown at the
    /// drawn komi for their policy targets only (see `uncounted`).
    pub fn with_uncounted(self, q: f32) -> KomiShift {
        KomiShift {
            uncounted: q,
            ..self
        }
    }

    /// The same with a share `j` of the uncounted positions left at their
    /// game's komi jittered (see [`KomiShift::jitter`]).
    pub fn with_jitter(self, j: f32) -> KomiShift {
        KomiShift { jitter: j, ..self }
    }

    /// A komi jitter for one uncounted position left at its game's komi,
    /// or `None` to keep it. Under area scoring the net also reads komi
    /// through the parity wave (global 18), whose period is two points: a
    /// game at komi 6.5 shows White −½ and Black +½ there, so where the
    /// resigned games (most of the human records) keep their komi the wave
    /// tells whose turn it is, as the komi itself did before absolute
    /// shifts, and the net's lead jumps by a point or two between whole
    /// and half komis. A jitter uniform over one period (−1, −½, 0, +½)
    /// shows every wave value to both colours equally often. The value
    /// target stays: a game resigned is not decided by a point of komi.
    /// Always draws one number, so a stream resumes exactly.
    pub fn jitter(&self, rng: &mut StdRng) -> Option<f32> {
        let u = rng.random::<f32>();
        if u >= self.jitter {
            return None;
        }
        // Four equal slices of [0, jitter): −1, −½, 0, +½.
        let slice = ((u / self.jitter) * 4.0).floor().min(3.0);
        let delta = slice / 2.0 - 1.0;
        (delta != 0.0).then_some(delta)
    }

    /// The change of komi (from the player to move's view) for one sample
    /// now at `self_komi`, or `None` to keep it as it is. Draws the same
    /// random numbers whatever the sample, so a stream resumes exactly.
    pub fn draw(&self, self_komi: f32, rng: &mut StdRng) -> Option<f32> {
        let halves = (self.max * 2.0).round() as i32;
        if halves <= 0 || rng.random::<f32>() >= self.prob {
            return None;
        }
        let h = rng.random_range(-halves..=halves) as f32 / 2.0;
        let delta = if self.absolute { h - self_komi } else { h };
        (delta != 0.0).then_some(delta)
    }
}

/// `s` seen `delta` points of komi better for the player to move, or
/// `None` where that is not known exactly: no counted score, or an
/// outcome that is not the score's sign (a resignation, a time loss).
pub fn shift_komi(s: &Sample, delta: f32) -> Option<Sample> {
    if !shiftable(s) {
        return None;
    }
    let mut out = s.clone();
    shift_komi_in_place(&mut out, delta);
    Some(out)
}

/// `s` shown at `delta` more komi for the player to move with its value,
/// score and ownership targets dropped: for a position whose result is
/// not a count (see [`KomiShift::uncounted`]).
pub fn shift_komi_policy_only(s: &mut Sample, delta: f32) {
    let komi = v7::self_komi(&s.global) + delta;
    v7::set_komi(&mut s.global, komi, s.size);
    s.flags &= !(HAS_VALUE | HAS_SCORE | HAS_OWNERSHIP);
}

/// `s`, a position whose result is not a count, shown at `delta` more
/// komi for the player to move with its value target kept and its score
/// target dropped: for komi jitters of a point or less (see
/// [`KomiShift::jitter`]). Counted positions are left to [`shift_komi`].
pub fn jitter_komi_uncounted(s: &mut Sample, delta: f32) -> bool {
    if shiftable(s) {
        return false;
    }
    let komi = v7::self_komi(&s.global) + delta;
    v7::set_komi(&mut s.global, komi, s.size);
    s.flags &= !(HAS_SCORE | HAS_OWNERSHIP);
    true
}

/// [`shift_komi`] on `s` itself; false (and `s` unchanged) where the shift
/// is not known exactly.
pub fn shift_komi_in_place(s: &mut Sample, delta: f32) -> bool {
    if !shiftable(s) {
        return false;
    }
    let komi = v7::self_komi(&s.global) + delta;
    v7::set_komi(&mut s.global, komi, s.size);
    s.score += delta;
    s.outcome = sign(s.score);
    true
}

/// Rules augmentation. Self-play plays Chinese and Japanese rules, and
/// the human records are Chinese or Japanese too, so without this a net
/// never sees the ko-rule and suicide inputs of Tromp-Taylor (positional
/// superko, suicide legal) or AGA (situational superko) and its policy
/// goes flat under them (issue 15's komi and rules check). A drawn sample
/// is shown under a ko rule and a suicide rule at least as permissive as
/// its game's: every move the game played stays legal, and the scoring
/// (area or territory), so every target, is unchanged. Only the ko-ban
/// plane can be stricter than the shown rule asks, where a superko ban
/// beyond the simple ko stood (long cycles: rare).
///
/// Territory scoring cannot come from a ko or suicide rule: a share
/// `territory` of the area-scored samples before the endgame is shown
/// under Japanese rules instead ([`show_under_territory`]), for its move
/// targets only.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RulesMix {
    /// Share of the drawn samples shown under drawn rules.
    pub prob: f32,
    /// Share of the drawn samples shown under territory scoring where
    /// [`show_under_territory`] applies. Configs written before it have 0.
    #[serde(default)]
    pub territory: f32,
}

impl RulesMix {
    /// From the `--rules-mix` share; `None` when it is 0 (off).
    pub fn from_flag(prob: f32) -> Option<RulesMix> {
        RulesMix::from_flags(prob, 0.0)
    }

    /// From the `--rules-mix` and `--territory-mix` shares; `None` when
    /// both are 0 (off).
    pub fn from_flags(prob: f32, territory: f32) -> Option<RulesMix> {
        (prob > 0.0 || territory > 0.0).then_some(RulesMix { prob, territory })
    }

    /// Whether one sample is shown under territory scoring. Draws nothing
    /// when the share is 0, so runs saved before the territory mix resume
    /// with the same random numbers.
    pub fn draw_territory(&self, rng: &mut StdRng) -> bool {
        self.territory > 0.0 && rng.random::<f32>() < self.territory
    }

    /// Rules for one sample (a ko rule, uniform, and suicide legal or
    /// not, even odds), or `None` to keep its own.
    pub fn draw(&self, rng: &mut StdRng) -> Option<(KoRule, bool)> {
        if rng.random::<f32>() >= self.prob {
            return None;
        }
        let ko = [KoRule::Simple, KoRule::Positional, KoRule::Situational][rng.random_range(0..3)];
        Some((ko, rng.random_bool(0.5)))
    }
}

/// Shows `s` under the ko rule `ko` and suicide rule `suicide` where each
/// is at least as permissive as the sample's own (else keeps its own);
/// true when the inputs changed.
pub fn vary_rules_in_place(s: &mut Sample, ko: KoRule, suicide: bool) -> bool {
    let (own_ko, own_suicide) = v7::ko_and_suicide(&s.global);
    let ko = if permits_all_of(ko, own_ko) {
        ko
    } else {
        own_ko
    };
    let suicide = suicide || own_suicide;
    if (ko, suicide) == (own_ko, own_suicide) {
        return false;
    }
    v7::set_ko_and_suicide(&mut s.global, ko, suicide);
    true
}

/// Shows `s`, an area-scored position before the endgame (stones on
/// fewer than half the points), under Japanese rules: territory scoring
/// with the seki tax, simple ko and no suicide (globals 6–11), no area
/// planes (18/19) and no komi parity wave, as [`v7::encode`] shows such a
/// position. Its value, score and ownership targets are dropped: the count
/// under territory scoring differs from the area count by the dame, the
/// prisoners and the stones played inside one's own area, which the
/// sample does not hold. The move targets stay: before the endgame the two
/// scorings value moves alike, while later a move inside one's own area
/// or on a dame costs a point under territory scoring only, so endgame
/// positions are left as they are. True when `s` changed.
///
/// Self-play plays most of its games under area scoring, and the empty
/// 9×9 board under territory scoring had only the territory games' own
/// targets, where a pass often led (`9x9-heads-v1`'s README): this shows
/// the policy the area games' openings under territory inputs too.
pub fn show_under_territory(s: &mut Sample) -> bool {
    let n = s.size * s.size;
    if s.global[9] != 0.0 || 2 * stones(s) >= n {
        return false;
    }
    let komi = v7::self_komi(&s.global);
    s.global[9] = 1.0;
    (s.global[10], s.global[11]) = (1.0, 0.0);
    v7::set_ko_and_suicide(&mut s.global, KoRule::Simple, false);
    v7::set_komi(&mut s.global, komi, s.size);
    s.spatial[18 * n..20 * n].fill(0.0);
    // Where the ko plane holds more than one point, superko bans stood
    // beside (or instead of) the simple ko, and which is which is not
    // recorded: none of them stays (rare before the endgame).
    let ko_plane = &mut s.spatial[6 * n..7 * n];
    if ko_plane.iter().filter(|&&x| x > 0.5).count() > 1 {
        ko_plane.fill(0.0);
    }
    s.flags &= !(HAS_VALUE | HAS_SCORE | HAS_OWNERSHIP);
    true
}

/// Whether every move legal under the ko rule `strict` is legal under
/// `loose`: positional superko bans the most (any repeated position),
/// situational less (only with the same player to move), simple ko only
/// the immediate retake.
fn permits_all_of(loose: KoRule, strict: KoRule) -> bool {
    use KoRule::*;
    matches!(
        (loose, strict),
        (_, Positional) | (Simple | Situational, Situational) | (Simple, Simple)
    )
}

/// A position of a counted game: its value and score targets are known.
pub(crate) fn counted(s: &Sample) -> bool {
    s.flags & HAS_SCORE != 0 && s.flags & HAS_VALUE != 0
}

fn shiftable(s: &Sample) -> bool {
    counted(s) && sign(s.score) == s.outcome
}

fn sign(x: f32) -> i8 {
    i8::from(x > 0.0) - i8::from(x < 0.0)
}
