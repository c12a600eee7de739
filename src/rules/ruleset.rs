//! Rules as data: ko rule, suicide, komi and handicap compensation.
//!
//! Scoring is always area scoring (Chinese rules C9; Tromp-Taylor counts
//! the same way once dead stones are removed).

use std::fmt;

/// Which repetitions are forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// Only the immediate retake of a single-stone ko.
    Simple,
    /// No move may recreate any earlier whole-board position (C6).
    Positional,
    /// No move may recreate an earlier position with the same player to move.
    Situational,
}

/// Points White receives for Black's handicap stones under area scoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandicapBonus {
    /// Nothing (Tromp-Taylor, AGA with the compensation in komi).
    Zero,
    /// One point per handicap stone (Chinese practice).
    N,
    /// One point per handicap stone after the first.
    NMinusOne,
}

/// A complete ruleset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ruleset {
    pub ko: KoRule,
    /// Whether a move that leaves its own string without liberties is legal
    /// (it then removes that string).
    pub suicide_allowed: bool,
    /// Komi in points, added to White's area.
    pub komi: f32,
    pub handicap_bonus: HandicapBonus,
}

impl Ruleset {
    /// The competition's rules (RULES.md C1–C11): positional superko, no
    /// suicide, area scoring, komi 2¾ stones = 5.5 points.
    pub fn chinese() -> Ruleset {
        Ruleset {
            ko: KoRule::Positional,
            suicide_allowed: false,
            komi: 5.5,
            handicap_bonus: HandicapBonus::N,
        }
    }

    /// Tromp-Taylor: positional superko, suicide allowed, komi 7.5.
    pub fn tromp_taylor() -> Ruleset {
        Ruleset {
            ko: KoRule::Positional,
            suicide_allowed: true,
            komi: 7.5,
            handicap_bonus: HandicapBonus::Zero,
        }
    }

    /// A named ruleset: `chinese`, `tromp-taylor` (also `tromp_taylor`,
    /// `tt`), `new-zealand` (`nz`), `aga`. Case-insensitive. Komi stays
    /// the ruleset's default.
    pub fn from_name(name: &str) -> Option<Ruleset> {
        let n = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        match n.as_str() {
            "chinese" | "cn" | "china" => Some(Ruleset::chinese()),
            "tromp-taylor" | "tt" | "tromptaylor" => Some(Ruleset::tromp_taylor()),
            "new-zealand" | "nz" | "newzealand" => Some(Ruleset {
                ko: KoRule::Situational,
                suicide_allowed: true,
                komi: 7.0,
                handicap_bonus: HandicapBonus::Zero,
            }),
            "aga" => Some(Ruleset {
                ko: KoRule::Situational,
                suicide_allowed: false,
                komi: 7.5,
                handicap_bonus: HandicapBonus::NMinusOne,
            }),
            _ => None,
        }
    }

    /// The same rules with another komi.
    pub fn with_komi(mut self, komi: f32) -> Ruleset {
        self.komi = komi;
        self
    }

    /// White's compensation in points for `handicap` stones.
    pub fn handicap_points(&self, handicap: usize) -> f32 {
        match self.handicap_bonus {
            HandicapBonus::Zero => 0.0,
            HandicapBonus::N => handicap as f32,
            HandicapBonus::NMinusOne => handicap.saturating_sub(1) as f32,
        }
    }
}

impl Default for Ruleset {
    fn default() -> Ruleset {
        Ruleset::chinese()
    }
}

impl fmt::Display for KoRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KoRule::Simple => "simple ko",
            KoRule::Positional => "positional superko",
            KoRule::Situational => "situational superko",
        })
    }
}
