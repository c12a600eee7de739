//! A game in progress as the trainer sees it: the position, the move
//! history a net's inputs need, the SGF record, and the referee's final
//! count (stones inside the other side's pass-alive area dead: what the
//! search assumes when both pass), under the game's scoring: area, or
//! territory with those dead stones as prisoners.

use tengen::eval::{EvalInput, RECENT_MOVES};
use tengen::features::v7::{self, V7Input};
use tengen::rules::benson::pass_alive;
use tengen::rules::score::{area_with_owners, margin_with};
use tengen::rules::{Board, Color, IllegalMove, Move, Point, Position, Ruleset};
use tengen::sgf::GameRecord;

/// See the module docs.
pub struct Game {
    pub position: Position,
    /// Every move played, oldest first.
    pub moves: Vec<(Color, Move)>,
    /// Boards before each of the last two moves, newest first.
    pub prev_boards: Vec<Board>,
    pub record: GameRecord,
}

/// The final count.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Black's points minus White's minus komi, under the game's
    /// scoring (area, or territory plus prisoners).
    pub margin: f32,
    /// `size * size`: Some(colour) owns the point, None dame.
    pub owners: Vec<Option<Color>>,
}

impl Game {
    /// A new game on an empty board under Chinese rules.
    pub fn new(size: usize, komi: f32) -> Result<Game, String> {
        Game::with_rules(size, Ruleset::chinese().with_komi(komi))
    }

    /// A new game on an empty board under `rules` (komi included).
    pub fn with_rules(size: usize, rules: Ruleset) -> Result<Game, String> {
        let position = Position::new(size, rules).map_err(|e| format!("board size {size}: {e}"))?;
        let mut record = GameRecord::new(size).map_err(|e| e.to_string())?;
        record.komi = Some(rules.komi);
        record.rules = Some(rules_name(&rules).into());
        Ok(Game {
            position,
            moves: Vec::new(),
            prev_boards: Vec::new(),
            record,
        })
    }

    pub fn size(&self) -> usize {
        self.position.size()
    }

    pub fn to_move(&self) -> Color {
        self.position.to_move()
    }

    /// The last [`RECENT_MOVES`] moves, newest last.
    pub fn recent(&self) -> Vec<(Color, Move)> {
        let k = self.moves.len().saturating_sub(RECENT_MOVES);
        self.moves[k..].to_vec()
    }

    /// Plays `mv` for the side to move, checking legality.
    pub fn play(&mut self, mv: Move, comment: Option<&str>) -> Result<(), IllegalMove> {
        let color = self.to_move();
        let before = self.position.board().clone();
        self.position.play(color, mv)?;
        self.prev_boards.insert(0, before);
        self.prev_boards.truncate(2);
        self.moves.push((color, mv));
        self.record.push_move(color, mv, comment);
        Ok(())
    }

    /// Both players passed in a row.
    pub fn is_over(&self) -> bool {
        self.position.is_over()
    }

    /// The evaluator's view of the current position.
    pub fn eval_input(&self) -> EvalInput {
        EvalInput::new(self.position.clone())
            .with_recent(self.recent())
            .with_prev_boards(self.prev_boards.clone())
    }

    /// V7 features of the current position (spatial, global).
    pub fn features(&self) -> (Vec<f32>, Vec<f32>) {
        let n = self.size() * self.size();
        let mut spatial = vec![0.0; v7::SPATIAL * n];
        let mut global = vec![0.0; v7::GLOBAL];
        let recent = self.recent();
        let input = V7Input {
            position: &self.position,
            moves: &recent,
            prev_boards: [self.prev_boards.first(), self.prev_boards.get(1)],
            white_handicap_bonus: 0.0,
            friendly_pass_ok: true,
        };
        v7::encode(&input, &mut spatial, &mut global);
        (spatial, global)
    }

    /// The referee's count of the board as it stands.
    pub fn outcome(&self) -> Outcome {
        let board = self.position.board();
        let size = board.size();
        let mut dead = Vec::new();
        for c in [Color::Black, Color::White] {
            let opp = pass_alive(board, c.opp());
            dead.extend(
                board
                    .points()
                    .filter(|&p| board.get(p) == Some(c) && opp.territory[p.index()]),
            );
        }
        let (count, owner) = area_with_owners(board, &dead);
        // No seki detection here: under the seki tax, eyes of groups in
        // seki are counted as the surrounding colour's (a rare case).
        let margin = margin_with(&count, board, &dead, &[], self.position.rules());
        Outcome {
            margin,
            owners: (0..size * size)
                .map(|i| owner[Point::from_dense(i, size).index()])
                .collect(),
        }
    }
}

/// The SGF `RU` name of `rules`: `japanese` for territory scoring,
/// `chinese` for area scoring with positional superko, else the closest
/// common name.
pub fn rules_name(rules: &Ruleset) -> &'static str {
    use tengen::rules::{KoRule, Scoring};
    match (rules.scoring, rules.ko, rules.suicide_allowed) {
        (Scoring::Territory, _, _) => "japanese",
        (Scoring::Area, KoRule::Positional, false) => "chinese",
        (Scoring::Area, KoRule::Positional, true) => "tromp-taylor",
        (Scoring::Area, _, true) => "nz",
        (Scoring::Area, _, false) => "aga",
    }
}

/// SGF result text for a margin (Black's view) or a resignation.
pub fn result_text(margin: f32, resigned: Option<Color>) -> String {
    match resigned {
        Some(c) => format!("{}+R", c.opp().letter()),
        None if margin > 0.0 => format!("B+{margin}"),
        None if margin < 0.0 => format!("W+{}", -margin),
        None => "0".to_string(),
    }
}
