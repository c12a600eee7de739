//! Rules as data: ko rule, suicide, scoring, komi and handicap
//! compensation.
//!
//! Scoring is area scoring (Chinese rules C9; Tromp-Taylor counts the
//! same way once dead stones are removed) or territory scoring (Japanese
//! and Korean rules: surrounded empty points plus prisoners, with the
//! seki tax: the eyes of groups in seki are not territory), see
//! [`super::score`].

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

/// How the board is counted at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scoring {
    /// Stones plus surrounded empty points; dame split (C9).
    #[default]
    Area,
    /// Surrounded empty points plus prisoners; dame count for no one.
    Territory,
}

/// Which points a group pays for being alive (KataGo's `tax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Tax {
    #[default]
    None,
    /// The eyes of groups in seki are no one's (Japanese, Korean).
    Seki,
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
    pub scoring: Scoring,
    pub tax: Tax,
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
            scoring: Scoring::Area,
            tax: Tax::None,
        }
    }

    /// Tromp-Taylor: positional superko, suicide allowed, komi 7.5.
    pub fn tromp_taylor() -> Ruleset {
        Ruleset {
            ko: KoRule::Positional,
            suicide_allowed: true,
            komi: 7.5,
            handicap_bonus: HandicapBonus::Zero,
            scoring: Scoring::Area,
            tax: Tax::None,
        }
    }

    /// Japanese (and Korean) rules: territory scoring with the seki tax,
    /// simple ko, no suicide, komi 6.5, no handicap compensation (under
    /// territory scoring handicap stones earn nothing).
    pub fn japanese() -> Ruleset {
        Ruleset {
            ko: KoRule::Simple,
            suicide_allowed: false,
            komi: 6.5,
            handicap_bonus: HandicapBonus::Zero,
            scoring: Scoring::Territory,
            tax: Tax::Seki,
        }
    }

    /// A named ruleset: `chinese`, `tromp-taylor` (also `tromp_taylor`,
    /// `tt`), `new-zealand` (`nz`), `aga`, `japanese` (`jp`), `korean`
    /// (`kr`). Case-insensitive. Komi stays
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
                scoring: Scoring::Area,
                tax: Tax::None,
            }),
            "aga" => Some(Ruleset {
                ko: KoRule::Situational,
                suicide_allowed: false,
                komi: 7.5,
                handicap_bonus: HandicapBonus::NMinusOne,
                scoring: Scoring::Area,
                tax: Tax::None,
            }),
            "japanese" | "jp" | "korean" | "kr" | "ko" => Some(Ruleset::japanese()),
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
