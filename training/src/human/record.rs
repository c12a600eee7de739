//! One human game record → training samples in its own context: the
//! handicap stones set up, the game's komi and rules in the net's inputs,
//! and only the targets the record really knows.
//!
//! # Rules
//! `RU` names the rules: `Japanese` (and `Korean`) is territory scoring
//! with simple ko and a seki tax, as KataGo's `japanese` rules;
//! `Chinese` is area scoring, positional superko, one point per handicap
//! stone; `AGA` situational superko, N−1; `NZ` situational superko,
//! suicide legal, no bonus. A record without `RU` is Chinese (Tom, a
//! Chinese server, records none). An unknown `RU` skips the game (we do
//! not guess a ruleset).
//!
//! # Targets
//! See [`ResultKind`] for how each kind of `RE` counts.

use rand::rngs::StdRng;
use rand::Rng;
use tengen::eval::policy_index;
use tengen::features::v7::{self, V7Input};
use tengen::rules::{Board, Color, Move, Position, Ruleset};
use tengen::sgf::GameRecord;

use super::packed::Packed;
use crate::shard::{HAS_POLICY, HAS_SCORE, HAS_VALUE, NO_MOVE};

/// The rules of one game as the net sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameRules {
    /// Ko, suicide, komi and handicap bonus (area part).
    pub ruleset: Ruleset,
    /// Territory scoring (V7 global 9) with the seki tax (global 10), as
    /// KataGo's Japanese rules.
    pub territory: bool,
}

/// The rules of `rec` (see the module docs), or why none.
pub fn rules_of(rec: &GameRecord) -> Result<GameRules, String> {
    let komi = rec.komi.unwrap_or(7.5);
    let name = rec.rules.as_deref().map(|r| r.trim().to_ascii_lowercase());
    let (ruleset, territory) = match name.as_deref() {
        None | Some("") | Some("chinese") | Some("cn") => (Ruleset::chinese(), false),
        Some("japanese") | Some("jp") | Some("korean") => (
            // Territory scoring with the seki tax, simple ko: the engine's
            // encoder now says so itself; `territory_inputs` agrees with it.
            Ruleset::japanese(),
            true,
        ),
        Some(other) => match Ruleset::from_name(other) {
            Some(r) => (r, false),
            None => return Err(format!("unknown rules {other:?}")),
        },
    };
    Ok(GameRules {
        ruleset: ruleset.with_komi(komi),
        territory,
    })
}

/// Turns area-scoring V7 inputs into territory-scoring ones, as KataGo
/// encodes them outside the encore: global 9 (territory scoring) and 10
/// (seki tax) on, the komi parity wave (18) off, and no area planes
/// (18/19), which KataGo omits until scoring matters.
pub fn territory_inputs(spatial: &mut [f32], global: &mut [f32], size: usize) {
    let n = size * size;
    spatial[18 * n..20 * n].fill(0.0);
    global[9] = 1.0;
    global[10] = 1.0;
    global[18] = 0.0;
}

/// What `RE` says, and how it counts:
/// - `Score`, `Resign`: winner known → value target; a margin → score
///   target too.
/// - `Draw` (`0`, `Draw`, `Jigo`): value ½–½, score 0.
/// - `Time`: the winner is who did not lose on time, which says little
///   about the position (blitz 9d games are often lost on time while
///   ahead): no value target unless [`Options::time_value`].
/// - `Forfeit`, `Void`, no `RE`, or anything unreadable: no value or
///   score target; the moves still teach the policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResultKind {
    /// Margin in points, Black's view (under the game's own scoring).
    Score(f32),
    Resign(Color),
    Time(Color),
    Forfeit(Color),
    Draw,
    Void,
    Unknown,
}

impl ResultKind {
    pub fn parse(re: Option<&str>) -> ResultKind {
        let Some(re) = re.map(str::trim) else {
            return ResultKind::Unknown;
        };
        let low = re.to_ascii_lowercase();
        if low == "0" || low == "draw" || low == "jigo" {
            return ResultKind::Draw;
        }
        if low == "void" {
            return ResultKind::Void;
        }
        let Some((c, rest)) = re.split_once('+') else {
            return ResultKind::Unknown;
        };
        let Some(color) = Color::parse(c.trim()) else {
            return ResultKind::Unknown;
        };
        let rest = rest.trim().to_ascii_lowercase();
        if let Ok(m) = rest.parse::<f32>() {
            if m.is_finite() && m >= 0.0 {
                return ResultKind::Score(if color == Color::Black { m } else { -m });
            }
            return ResultKind::Unknown;
        }
        match rest.as_str() {
            "r" | "resign" => ResultKind::Resign(color),
            "t" | "time" => ResultKind::Time(color),
            "f" | "forfeit" => ResultKind::Forfeit(color),
            _ => ResultKind::Unknown,
        }
    }

    /// The winner (None: a draw) when the result gives a value target.
    pub fn value(&self, time_value: bool) -> Option<Option<Color>> {
        match *self {
            ResultKind::Score(m) if m > 0.0 => Some(Some(Color::Black)),
            ResultKind::Score(m) if m < 0.0 => Some(Some(Color::White)),
            ResultKind::Score(_) | ResultKind::Draw => Some(None),
            ResultKind::Resign(c) => Some(Some(c)),
            ResultKind::Time(c) if time_value => Some(Some(c)),
            _ => None,
        }
    }

    /// The margin (Black's view) when the result gives a score target.
    pub fn margin(&self) -> Option<f32> {
        match *self {
            ResultKind::Score(m) => Some(m),
            ResultKind::Draw => Some(0.0),
            _ => None,
        }
    }
}

/// A rank like `9d`, `6d?`, `3k`, `1p` on one scale: `Nk` → 1 − N,
/// `Nd` → N, `Np` → 9 + N (professionals above amateur 9d).
pub fn parse_rank(s: &str) -> Option<i32> {
    let s = s.trim().trim_end_matches(['?', '*']).to_ascii_lowercase();
    let (num, kind) = s.split_at(s.find(|c: char| !c.is_ascii_digit())?);
    let n: i32 = num.parse().ok()?;
    match kind.trim() {
        "k" | "kyu" => Some(1 - n),
        "d" | "dan" => Some(n),
        "p" | "pro" => Some(9 + n),
        _ => None,
    }
}

/// How samples are made from records.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Policy targets only from moves of a player ranked at least this
    /// ([`parse_rank`] scale; an unknown rank does not qualify).
    pub min_rank: Option<i32>,
    /// Players (`PB`/`PW`, without case) whose moves are no policy target.
    pub no_policy_for: Vec<String>,
    /// Count `+Time` results as value targets.
    pub time_value: bool,
    /// Probability of keeping each position (the rest are replayed only).
    pub keep: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            min_rank: None,
            no_policy_for: Vec::new(),
            time_value: false,
            keep: 1.0,
        }
    }
}

/// Why a record gave no samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Skip {
    /// Not an SGF game tree.
    Parse,
    /// Not 19×19 (the run's size).
    Size,
    /// `RU` names rules we do not know.
    Rules,
    /// Setup other than Black's handicap stones at the root.
    Setup,
    /// A move is illegal under the game's rules.
    Illegal,
    /// No moves.
    Empty,
}

/// A game's starting position: its rules, Black's handicap stones set up,
/// and the points White receives for them.
pub struct Start {
    pub pos: Position,
    pub rules: GameRules,
    pub bonus: f32,
}

/// The starting position of `rec` on a `size` board, or why it gives
/// none (the only setup allowed is Black's handicap stones at the root).
pub fn start(rec: &GameRecord, size: usize) -> Result<Start, Skip> {
    if rec.size != size {
        return Err(Skip::Size);
    }
    let rules = rules_of(rec).map_err(|_| Skip::Rules)?;
    let mut stones = Vec::new();
    for (i, n) in rec.nodes.iter().enumerate() {
        for &(c, p) in &n.setup {
            if i != 0 || c != Some(Color::Black) {
                return Err(Skip::Setup);
            }
            stones.push(p);
        }
    }
    let mut pos = Position::new(size, rules.ruleset).map_err(|_| Skip::Size)?;
    for &p in &stones {
        pos.setup(Some(Color::Black), p).map_err(|_| Skip::Setup)?;
    }
    let handicap = if stones.len() >= 2 { stones.len() } else { 0 };
    let bonus = rules.ruleset.handicap_points(handicap);
    Ok(Start { pos, rules, bonus })
}

/// Samples of one game. `keep` and the position choice draw from `rng`.
/// `final_own`, when the game has an ownership label
/// ([`super::labels`]), is its final ownership in Black's view (dense
/// order, +1 Black's, −1 White's, 0 neither): every sample then carries
/// it as its ownership target.
pub fn game_samples(
    rec: &GameRecord,
    size: usize,
    opts: &Options,
    final_own: Option<&[i8]>,
    rng: &mut StdRng,
) -> Result<Vec<Packed>, Skip> {
    let Start {
        mut pos,
        rules,
        bonus,
    } = start(rec, size)?;
    let final_own = final_own.filter(|o| o.len() == size * size);
    let result = ResultKind::parse(rec.result.as_deref());
    let value = result.value(opts.time_value);
    let margin = result.margin();
    let moves: Vec<(Color, Move)> = rec.moves().collect();
    if moves.is_empty() {
        return Err(Skip::Empty);
    }
    let named = |name: &Option<String>| {
        name.as_deref().is_some_and(|n| {
            opts.no_policy_for
                .iter()
                .any(|x| x.trim().eq_ignore_ascii_case(n.trim()))
        })
    };
    let strong = |rank: Option<String>| match opts.min_rank {
        None => true,
        Some(min) => rank
            .as_deref()
            .and_then(parse_rank)
            .is_some_and(|r| r >= min),
    };
    let teaches = |c: Color| match c {
        Color::Black => !named(&rec.black) && strong(rec.root_property("BR")),
        Color::White => !named(&rec.white) && strong(rec.root_property("WR")),
    };
    let (teach_b, teach_w) = (teaches(Color::Black), teaches(Color::White));
    let teach = |c: Color| if c == Color::Black { teach_b } else { teach_w };
    let n = size * size;
    let mut spatial = vec![0.0; v7::SPATIAL * n];
    let mut global = vec![0.0; v7::GLOBAL];
    let mut prev: Vec<Board> = Vec::new();
    let mut out = Vec::new();
    for (i, &(color, mv)) in moves.iter().enumerate() {
        if pos.to_move() != color {
            pos.set_to_move(color);
        }
        if rng.random_bool(opts.keep.clamp(0.0, 1.0)) {
            let recent = &moves[i.saturating_sub(tengen::eval::RECENT_MOVES)..i];
            let input = V7Input {
                position: &pos,
                moves: recent,
                prev_boards: [prev.first(), prev.get(1)],
                white_handicap_bonus: bonus,
                friendly_pass_ok: true,
            };
            v7::encode(&input, &mut spatial, &mut global);
            if rules.territory {
                territory_inputs(&mut spatial, &mut global, size);
            }
            let mut flags = 0;
            let policy = if teach(color) {
                flags |= HAS_POLICY;
                policy_index(mv, size) as u16
            } else {
                NO_MOVE
            };
            let mut outcome = 0i8;
            if let Some(w) = value {
                flags |= HAS_VALUE;
                outcome = match w {
                    Some(w) if w == color => 1,
                    Some(_) => -1,
                    None => 0,
                };
            }
            let mut score = 0.0;
            if let Some(m) = margin {
                flags |= HAS_SCORE;
                score = if color == Color::Black { m } else { -m };
            }
            let opp = moves
                .get(i + 1)
                .filter(|&&(c, _)| teach(c))
                .map_or(NO_MOVE, |&(_, m)| policy_index(m, size) as u16);
            let mut packed = Packed::new(
                size, flags, &spatial, &global, policy, opp, outcome, score, i as u16,
            );
            if let Some(own) = final_own {
                let sign = if color == Color::Black { 1 } else { -1 };
                packed.set_ownership(own.iter().map(|&o| o * sign).collect());
            }
            out.push(packed);
        }
        let before = pos.board().clone();
        pos.play(color, mv).map_err(|_| Skip::Illegal)?;
        prev.insert(0, before);
        prev.truncate(2);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_parse() {
        use ResultKind::*;
        assert_eq!(ResultKind::parse(Some("B+Resign")), Resign(Color::Black));
        assert_eq!(ResultKind::parse(Some("W+R")), Resign(Color::White));
        assert_eq!(ResultKind::parse(Some("W+12.5")), Score(-12.5));
        assert_eq!(ResultKind::parse(Some("B+Time")), Time(Color::Black));
        assert_eq!(ResultKind::parse(Some("W+Forfeit")), Forfeit(Color::White));
        assert_eq!(ResultKind::parse(Some("Void")), Void);
        assert_eq!(ResultKind::parse(Some("0")), Draw);
        assert_eq!(ResultKind::parse(None), Unknown);
        assert_eq!(ResultKind::parse(Some("B+?")), Unknown);
        assert_eq!(Time(Color::Black).value(false), None);
        assert_eq!(Time(Color::Black).value(true), Some(Some(Color::Black)));
    }

    #[test]
    fn ranks_parse() {
        assert_eq!(parse_rank("9d"), Some(9));
        assert_eq!(parse_rank("6d?"), Some(6));
        assert_eq!(parse_rank("1k"), Some(0));
        assert_eq!(parse_rank("30k"), Some(-29));
        assert_eq!(parse_rank("2p"), Some(11));
        assert_eq!(parse_rank("?"), None);
        assert_eq!(parse_rank(""), None);
    }
}
