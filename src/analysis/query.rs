//! One input line → a request: an action (`query_version`, `terminate`,
//! ...) or the positions to analyse, one [`TurnJob`] per requested turn.
//!
//! Checks follow KataGo's analysis engine: fields are validated in its
//! order and the first bad one ends the query with
//! `{"id":..,"field":..,"error":..}` (KataGo's messages); problems that do
//! not stop the query are `{"id":..,"field":..,"warning":..}` lines. Never
//! panics on input.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::rules;
use super::{AnalysisConfig, Perspective};
use crate::eval::{PREV_BOARDS, RECENT_MOVES};
use crate::rules::{Board, Color, IllegalMove, Move, Point, Position, MAX_SIZE, MIN_SIZE};
use crate::search::SearchConfig;

/// Per-query settings shared by its turns.
#[derive(Clone, Debug)]
pub struct Settings {
    pub perspective: Perspective,
    pub max_visits: u64,
    pub max_playouts: Option<u64>,
    pub max_time: Option<Duration>,
    /// Moves after the first in each reported PV.
    pub pv_len: usize,
    pub include_ownership: bool,
    pub include_moves_ownership: bool,
    pub include_policy: bool,
    /// `pvVisits` beside each PV.
    pub include_pv_visits: bool,
    /// `ownershipStdev` beside `ownership`.
    pub include_ownership_stdev: bool,
    pub report_every: Option<Duration>,
    pub first_report_after: Option<Duration>,
    /// Per colour (`Color::index`): for each policy index, the depth (plies
    /// from the root) before which the move is barred; 0: never.
    pub masks: [Option<Vec<u32>>; 2],
    pub search: SearchConfig,
}

/// One turn of one query, ready to search.
#[derive(Clone, Debug)]
pub struct TurnJob {
    pub id: String,
    pub turn_number: usize,
    pub position: Position,
    /// Moves that led here, newest last (at most `RECENT_MOVES`).
    pub recent: Vec<(Color, Move)>,
    /// Boards before the last move and the one before, newest first.
    pub prev_boards: Vec<Board>,
    pub handicap_bonus: f32,
    pub priority: i64,
    pub settings: Arc<Settings>,
}

/// A special action.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Version,
    Models,
    ClearCache,
    /// `terminate` (an id) or `terminate_all` (`None`), optionally only
    /// some turns.
    Terminate {
        id: Option<String>,
        turns: Option<Vec<i64>>,
    },
}

/// What a line asks for.
#[derive(Debug)]
pub enum Request {
    /// The action and the query object (echoed back).
    Action(Action, Value),
    Analyze(Vec<TurnJob>),
}

/// The outcome of parsing a line: lines to print first (errors,
/// warnings), then the request if the query was good.
#[derive(Debug, Default)]
pub struct Parsed {
    pub messages: Vec<Value>,
    pub request: Option<Request>,
}

/// Top-level fields KataGo knows; others draw a warning.
const EXPECTED: &[&str] = &[
    "id",
    "action",
    "terminateId",
    "turnNumbers",
    "boardXSize",
    "boardYSize",
    "initialStones",
    "moves",
    "initialPlayer",
    "analyzeTurns",
    "priorities",
    "rules",
    "komi",
    "whiteHandicapBonus",
    "overrideSettings",
    "maxVisits",
    "analysisPVLen",
    "rootFpuReductionMax",
    "rootPolicyTemperature",
    "includeMovesOwnership",
    "includeMovesOwnershipStdev",
    "includeOwnership",
    "includeOwnershipStdev",
    "includePolicy",
    "includePVVisits",
    "includeNoResultValue",
    "reportDuringSearchEvery",
    "firstReportDuringSearchAfter",
    "priority",
    "allowMoves",
    "avoidMoves",
];

/// KataGo settings clients send that tengen cannot honour.
const UNSUPPORTED_SETTINGS: &[&str] = &[
    "playoutDoublingAdvantage",
    "playoutDoublingAdvantagePla",
    "antiMirror",
    "rootPolicyTemperature",
    "rootPolicyTemperatureEarly",
    "humanSLProfile",
];

const UNUSED_FIELD: &str =
    "Unexpected or unused field, do you have a typo? (set warnUnusedFields=false in the config to disable this warning)";
const PAIRS: &str = "Must be an array of pairs of the form: [\"b\" or \"w\", GTP board vertex]";
const AVOID_SHAPE: &str = "Must be a list of dicts with subfields 'player', 'moves', 'untilDepth'";
const TURNS_TO_TERMINATE: &str =
    "If provided, must be an array of integers indicating turns to terminate";

/// `{"error":..}`: a line that is not a query.
pub fn general_error(msg: &str) -> Value {
    json!({ "error": msg })
}

/// `{"id":..,"field":..,"error":..}`.
pub fn field_error(id: &str, field: &str, msg: &str) -> Value {
    json!({ "id": id, "field": field, "error": msg })
}

/// `{"id":..,"field":..,"warning":..}`.
pub fn field_warning(id: &str, field: &str, msg: &str) -> Value {
    json!({ "id": id, "field": field, "warning": msg })
}

/// Parses one line. See the module docs.
pub fn parse_line(line: &str, config: &AnalysisConfig) -> Parsed {
    let mut out = Parsed::default();
    let input: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            out.messages.push(general_error(&format!(
                "{e} - could not parse input line as json request: {line}"
            )));
            return out;
        }
    };
    let Some(obj) = input.as_object() else {
        out.messages.push(general_error(&format!(
            "Request line was valid json but was not an object, ignoring: {input}"
        )));
        return out;
    };
    let Some(id) = obj.get("id").and_then(Value::as_str) else {
        out.messages
            .push(general_error("Request must have a string \"id\" field"));
        return out;
    };
    let id = id.to_string();
    let mut q = QueryParser {
        id: &id,
        obj,
        messages: &mut out.messages,
    };
    if let Some(action) = obj.get("action").and_then(Value::as_str) {
        out.request = q.action(action).map(|a| Request::Action(a, input.clone()));
    } else {
        out.request = q.analysis(config).map(Request::Analyze);
    }
    out
}

struct QueryParser<'a> {
    id: &'a str,
    obj: &'a Map<String, Value>,
    messages: &'a mut Vec<Value>,
}

impl QueryParser<'_> {
    /// Records an error for `field` and returns `None`.
    fn fail<T>(&mut self, field: &str, msg: &str) -> Option<T> {
        self.messages.push(field_error(self.id, field, msg));
        None
    }

    fn warn(&mut self, field: &str, msg: &str) {
        self.messages.push(field_warning(self.id, field, msg));
    }

    fn has(&self, field: &str) -> bool {
        self.obj.contains_key(field)
    }

    fn int(&mut self, field: &str, min: i64, max: i64, msg: &str) -> Option<i64> {
        match self.obj.get(field).and_then(Value::as_i64) {
            Some(x) if (min..=max).contains(&x) => Some(x),
            _ => self.fail(field, msg),
        }
    }

    fn number(&mut self, field: &str, min: f64, max: f64, msg: &str) -> Option<f64> {
        match self.obj.get(field).and_then(Value::as_f64) {
            Some(x) if x.is_finite() && (min..=max).contains(&x) => Some(x),
            _ => self.fail(field, msg),
        }
    }

    fn boolean(&mut self, field: &str, buf: &mut bool) -> Option<()> {
        if !self.has(field) {
            return Some(());
        }
        match self.obj.get(field).and_then(Value::as_bool) {
            Some(b) => {
                *buf = b;
                Some(())
            }
            None => self.fail(field, "Must be a boolean"),
        }
    }

    fn turn_numbers(&mut self) -> Option<Option<Vec<i64>>> {
        let Some(v) = self.obj.get("turnNumbers") else {
            return Some(None);
        };
        match int_array(v) {
            Some(t) => Some(Some(t)),
            None => self.fail("turnNumbers", TURNS_TO_TERMINATE),
        }
    }

    fn action(&mut self, action: &str) -> Option<Action> {
        match action {
            "query_version" => Some(Action::Version),
            "query_models" => Some(Action::Models),
            "clear_cache" => Some(Action::ClearCache),
            "terminate" => {
                let Some(target) = self.obj.get("terminateId").and_then(Value::as_str) else {
                    return self.fail(
                        "terminateId",
                        "Requests for a terminate action must have a string \"terminateId\" field",
                    );
                };
                let id = Some(target.to_string());
                let turns = self.turn_numbers()?;
                Some(Action::Terminate { id, turns })
            }
            "terminate_all" => {
                let turns = self.turn_numbers()?;
                Some(Action::Terminate { id: None, turns })
            }
            _ => {
                // KataGo sends this without an id; the id helps clients.
                self.messages.push(json!({
                    "id": self.id,
                    "error": "'action' field must be 'query_version' or 'query_models' or 'clear_cache' or 'terminate' or 'terminate_all'",
                }));
                None
            }
        }
    }

    fn board_moves(
        &mut self,
        field: &str,
        size: usize,
        allow_pass: bool,
    ) -> Option<Vec<(Color, Move)>> {
        let Some(list) = self.obj.get(field).and_then(Value::as_array) else {
            return self.fail(field, PAIRS);
        };
        let mut out = Vec::with_capacity(list.len());
        for elt in list {
            let pair = match elt.as_array().map(Vec::as_slice) {
                Some([a, b]) => (a.as_str(), b.as_str()),
                _ => return self.fail(field, PAIRS),
            };
            let (Some(c), Some(m)) = pair else {
                return self.fail(field, PAIRS);
            };
            let Some(color) = Color::parse(c) else {
                return self.fail(field, &format!("Could not parse player: {c}"));
            };
            match parse_move(m, size) {
                Some(mv) if allow_pass || mv != Move::Pass => out.push((color, mv)),
                _ => return self.fail(field, &format!("Could not parse board location: {m}")),
            }
        }
        Some(out)
    }

    fn player(&mut self, v: Option<&Value>, field: &str) -> Option<Color> {
        match v.and_then(Value::as_str).and_then(Color::parse) {
            Some(c) => Some(c),
            None => self.fail(field, "Must be \"b\" or \"w\""),
        }
    }

    fn board_size(&mut self) -> Option<usize> {
        let msg = format!("Must provide an integer from {MIN_SIZE} to {MAX_SIZE}");
        let (lo, hi) = (MIN_SIZE as i64, MAX_SIZE as i64);
        let x = self.int("boardXSize", lo, hi, &msg)?;
        let y = self.int("boardYSize", lo, hi, &msg)?;
        if x != y {
            return self.fail(
                "boardYSize",
                "Rectangular boards are not supported: boardYSize must equal boardXSize",
            );
        }
        Some(x as usize)
    }

    /// The whole analysis query.
    fn analysis(&mut self, config: &AnalysisConfig) -> Option<Vec<TurnJob>> {
        let size = self.board_size()?;
        let stones = if self.has("initialStones") {
            self.board_moves("initialStones", size, false)?
        } else {
            Vec::new()
        };
        if !self.has("moves") {
            return self.fail("moves", "Must specify an array of [player,location] pairs");
        }
        let moves = self.board_moves("moves", size, true)?;
        let initial_player = match self.obj.get("initialPlayer") {
            Some(v) => Some(self.player(Some(v), "initialPlayer")?),
            None => None,
        };

        let mut analyze = vec![false; moves.len() + 1];
        let turns = match self.obj.get("analyzeTurns") {
            Some(v) => {
                let Some(turns) = int_array(v) else {
                    return self.fail(
                        "analyzeTurns",
                        "Must specify an array of integers indicating turns to analyze",
                    );
                };
                for &t in &turns {
                    if t < 0 || t as usize >= analyze.len() {
                        return self.fail("analyzeTurns", &format!("Invalid turn number: {t}"));
                    }
                    analyze[t as usize] = true;
                }
                Some(turns)
            }
            None => {
                analyze[moves.len()] = true;
                None
            }
        };
        let mut priorities: Vec<Option<i64>> = vec![None; analyze.len()];
        if let Some(v) = self.obj.get("priorities") {
            let Some(ps) = int_array(v) else {
                return self.fail(
                    "priorities",
                    "Must specify an array of integers indicating priorities",
                );
            };
            let Some(turns) = &turns else {
                return self.fail(
                    "priorities",
                    "Can only specify when also specifying analyzeTurns",
                );
            };
            if ps.len() != turns.len() {
                return self.fail("priorities", "Must be of matching length to analyzeTurns");
            }
            for (&t, &p) in turns.iter().zip(&ps) {
                priorities[t as usize] = Some(p);
            }
        }

        let rules_msg = "Must specify rules string, such as \"chinese\" or \"tromp-taylor\", or a JSON object with detailed rules parameters.";
        let Some(rules_value) = self.obj.get("rules") else {
            return self.fail("rules", rules_msg);
        };
        let parsed = match rules::parse(rules_value) {
            Ok(p) => p,
            Err(e) => return self.fail("rules", &e),
        };
        let mut ruleset = parsed.rules;
        if self.has("komi") {
            let msg = "Must be a integer or half-integer from -400.0 to 400.0";
            let komi = self.number("komi", -400.0, 400.0, msg)?;
            if (komi * 2.0).fract() != 0.0 {
                return self.fail("komi", msg);
            }
            ruleset.komi = komi as f32;
        }
        if let Some(v) = self.obj.get("whiteHandicapBonus") {
            use crate::rules::HandicapBonus;
            ruleset.handicap_bonus = match v.as_str() {
                Some("0") => HandicapBonus::Zero,
                Some("N") => HandicapBonus::N,
                Some("N-1") => HandicapBonus::NMinusOne,
                Some(s) => {
                    return self.fail(
                        "whiteHandicapBonus",
                        &format!("Unknown whiteHandicapBonus rule: {s}"),
                    )
                }
                None => return self.fail("whiteHandicapBonus", "Must be a string"),
            };
        }

        let mut settings = Settings {
            perspective: config.perspective,
            max_visits: config.max_visits,
            max_playouts: None,
            max_time: config.max_time,
            pv_len: config.pv_len,
            include_ownership: false,
            include_moves_ownership: false,
            include_policy: false,
            include_pv_visits: false,
            include_ownership_stdev: false,
            report_every: None,
            first_report_after: None,
            masks: [None, None],
            search: config.search.clone(),
        };
        if let Some(v) = self.obj.get("overrideSettings") {
            self.override_settings(v, &mut settings)?;
        }
        if self.has("maxVisits") {
            settings.max_visits =
                self.int("maxVisits", 1, 1 << 50, "Must be an integer from 1 to 2^50")? as u64;
        }
        if self.has("analysisPVLen") {
            settings.pv_len = self.int(
                "analysisPVLen",
                1,
                1000,
                "Must be an integer from 1 to 1000",
            )? as usize;
        }
        if self.has("rootFpuReductionMax") {
            let r = self.number(
                "rootFpuReductionMax",
                0.0,
                2.0,
                "Must be a number from 0.0 to 2.0",
            )?;
            settings.search.root_fpu_reduction = r as f32;
        }
        if self.has("rootPolicyTemperature") {
            self.number(
                "rootPolicyTemperature",
                0.01,
                100.0,
                "Must be a number from 0.01 to 100.0",
            )?;
            self.warn("rootPolicyTemperature", "Not supported by tengen, ignored");
        }
        self.boolean(
            "includeMovesOwnership",
            &mut settings.include_moves_ownership,
        )?;
        self.boolean("includeOwnership", &mut settings.include_ownership)?;
        self.boolean("includePolicy", &mut settings.include_policy)?;
        self.boolean("includePVVisits", &mut settings.include_pv_visits)?;
        self.boolean(
            "includeOwnershipStdev",
            &mut settings.include_ownership_stdev,
        )?;
        for field in ["includeMovesOwnershipStdev", "includeNoResultValue"] {
            let mut b = false;
            self.boolean(field, &mut b)?;
            if b {
                self.warn(field, "Not supported by tengen, ignored");
            }
        }
        let every_msg = "Must be number of seconds from 0.001 to 1000000.0";
        if self.has("reportDuringSearchEvery") {
            let s = self.number("reportDuringSearchEvery", 0.001, 1e6, every_msg)?;
            settings.report_every = Some(Duration::from_secs_f64(s));
        }
        if self.has("firstReportDuringSearchAfter") {
            let s = self.number("firstReportDuringSearchAfter", 0.001, 1e6, every_msg)?;
            settings.first_report_after = Some(Duration::from_secs_f64(s));
        }
        let mut priority = 0;
        if self.has("priority") {
            if self.has("priorities") {
                return self.fail("priority", "Cannot specify both priority and priorities");
            }
            let lim = 0x3FFF_FFFF_FFFF_FFFF;
            priority = self.int(
                "priority",
                -lim,
                lim,
                "Must be a number between -2^62 and 2^62",
            )?;
        }
        self.move_masks(size, &mut settings)?;

        for key in self.obj.keys() {
            if !EXPECTED.contains(&key.as_str()) {
                self.warn(key, UNUSED_FIELD);
            }
        }
        if let Some(w) = &parsed.warning {
            self.warn("rules", w);
        }
        self.build(
            size,
            ruleset,
            &stones,
            initial_player,
            &moves,
            &analyze,
            &priorities,
            priority,
            settings,
        )
    }

    /// `overrideSettings`: the settings tengen knows are applied; others
    /// draw KataGo's "Unknown config params" warning.
    fn override_settings(&mut self, v: &Value, s: &mut Settings) -> Option<()> {
        let Some(map) = v.as_object() else {
            return self.fail("overrideSettings", "Must be an object");
        };
        let mut unknown: Vec<&str> = Vec::new();
        for (key, value) in map {
            match apply_setting(key, value, s) {
                Ok(true) => {}
                Ok(false) => unknown.push(key),
                Err(e) => {
                    return self.fail("overrideSettings", &format!("Could not set settings: {e}"))
                }
            }
        }
        // Known to KataGo, but not something tengen can honour: said so
        // plainly, not as a typo.
        let (unsupported, unknown): (Vec<&str>, Vec<&str>) = unknown
            .into_iter()
            .partition(|k| UNSUPPORTED_SETTINGS.contains(k));
        if !unsupported.is_empty() {
            let msg = format!(
                "Not supported by tengen, ignored: {} (its nets have no input for them)",
                unsupported.join(",")
            );
            self.warn("overrideSettings", &msg);
        }
        if !unknown.is_empty() {
            let msg = format!("Unknown config params: {}", unknown.join(","));
            self.warn("overrideSettings", &msg);
        }
        Some(())
    }

    /// `avoidMoves` / `allowMoves` into per-colour depth masks.
    fn move_masks(&mut self, size: usize, s: &mut Settings) -> Option<()> {
        let (allow, avoid) = (self.has("allowMoves"), self.has("avoidMoves"));
        if !allow && !avoid {
            return Some(());
        }
        if allow && avoid {
            return self.fail(
                "allowMoves",
                "Cannot specify both allowMoves and avoidMoves",
            );
        }
        let field = if allow { "allowMoves" } else { "avoidMoves" };
        let Some(list) = self.obj.get(field).and_then(Value::as_array) else {
            return self.fail(field, AVOID_SHAPE);
        };
        if allow && list.len() > 2 {
            return self.fail(
                field,
                "Currently allowMoves only allows at most one entry per player",
            );
        }
        let n = size * size + 1;
        for entry in list {
            let Some(e) = entry.as_object() else {
                return self.fail(field, AVOID_SHAPE);
            };
            let (Some(moves), Some(depth)) = (e.get("moves"), e.get("untilDepth")) else {
                return self.fail(field, AVOID_SHAPE);
            };
            if !e.contains_key("player") {
                return self.fail(field, AVOID_SHAPE);
            }
            let color = self.player(e.get("player"), "player")?;
            let Some(moves) = moves.as_array() else {
                return self.fail("moves", "Must be an array of GTP board vertices");
            };
            let mut idx = Vec::with_capacity(moves.len());
            for m in moves {
                let Some(m) = m.as_str() else {
                    return self.fail("moves", "Must be an array of GTP board vertices");
                };
                match parse_move(m, size) {
                    Some(mv) => idx.push(crate::eval::policy_index(mv, size)),
                    None => {
                        return self.fail("moves", &format!("Could not parse board location: {m}"))
                    }
                }
            }
            let depth = match depth.as_i64() {
                Some(d) if (1..=1_000_000_000).contains(&d) => d as u32,
                _ => return self.fail("untilDepth", "Must be a positive integer"),
            };
            let slot = &mut s.masks[color.index()];
            if allow {
                if slot.is_some() {
                    return self.fail(
                        field,
                        "Cannot specify allowMoves more than once for the same player",
                    );
                }
                let mut mask = vec![depth; n];
                for i in idx {
                    mask[i] = 0;
                }
                *slot = Some(mask);
            } else {
                let mask = slot.get_or_insert_with(|| vec![0; n]);
                for i in idx {
                    mask[i] = depth;
                }
            }
        }
        Some(())
    }

    /// Replays the game and cuts one job per requested turn.
    #[allow(clippy::too_many_arguments)]
    fn build(
        &mut self,
        size: usize,
        rules: crate::rules::Ruleset,
        stones: &[(Color, Move)],
        initial_player: Option<Color>,
        moves: &[(Color, Move)],
        analyze: &[bool],
        priorities: &[Option<i64>],
        priority: i64,
        settings: Settings,
    ) -> Option<Vec<TurnJob>> {
        let Ok(mut pos) = Position::new(size, rules) else {
            return self.fail("boardXSize", "Unsupported board size");
        };
        for &(c, mv) in stones {
            if let Move::Place(p) = mv {
                if pos.setup(Some(c), p).is_err() {
                    return self.fail(
                        "initialStones",
                        &format!("Could not parse board location: {}", mv.to_gtp(size)),
                    );
                }
            }
        }
        let blacks = stones.iter().filter(|s| s.0 == Color::Black).count();
        let handicap = if blacks >= 2 && blacks == stones.len() {
            blacks
        } else {
            0
        };
        let first = initial_player
            .or(moves.first().map(|m| m.0))
            .unwrap_or(if handicap > 0 {
                Color::White
            } else {
                Color::Black
            });
        pos.set_to_move(first);
        let bonus = rules.handicap_points(handicap);

        let settings = Arc::new(settings);
        let mut boards: Vec<Board> = vec![pos.board().clone()];
        let mut jobs = Vec::new();
        for (t, &wanted) in analyze.iter().enumerate() {
            if wanted {
                let recent = moves[t.saturating_sub(RECENT_MOVES)..t].to_vec();
                let prev_boards = (1..=PREV_BOARDS)
                    .filter_map(|k| t.checked_sub(k).map(|i| boards[i].clone()))
                    .collect();
                jobs.push(TurnJob {
                    id: self.id.to_string(),
                    turn_number: t,
                    position: pos.clone(),
                    recent,
                    prev_boards,
                    handicap_bonus: bonus,
                    priority: priorities[t].unwrap_or(priority),
                    settings: Arc::clone(&settings),
                });
            }
            let Some(&(c, mv)) = moves.get(t) else {
                break;
            };
            // Tolerant replay, like KataGo: ko and superko breaks in a
            // record are accepted; occupied points and suicide are not.
            let bad = matches!(
                pos.check(c, mv),
                Err(IllegalMove::OffBoard | IllegalMove::Occupied | IllegalMove::Suicide)
            );
            if bad || pos.play_disputed(c, mv).is_err() {
                return self.fail("moves", &format!("Illegal move {t}: {}", mv.to_gtp(size)));
            }
            boards.push(pos.board().clone());
        }
        Some(jobs)
    }
}

/// Applies one `overrideSettings` entry: `Ok(false)` for an unknown key.
fn apply_setting(key: &str, v: &Value, s: &mut Settings) -> Result<bool, String> {
    // KataGo takes strings for everything ("0.5"), as its config file does.
    let text = match v {
        Value::String(t) => t.clone(),
        other => other.to_string(),
    };
    let num = || -> Result<f64, String> {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{key}: could not parse '{text}' as a number"))
    };
    let positive = |x: f64| -> Result<f64, String> {
        if x >= 0.0 {
            Ok(x)
        } else {
            Err(format!("{key}: must not be negative"))
        }
    };
    match key {
        "reportAnalysisWinratesAs" => {
            s.perspective = Perspective::parse(&text).ok_or_else(|| {
                format!("{key}: expected BLACK, WHITE or SIDETOMOVE, got '{text}'")
            })?;
        }
        "maxVisits" => s.max_visits = positive(num()?)?.max(1.0) as u64,
        "maxPlayouts" => s.max_playouts = Some(positive(num()?)?.max(1.0) as u64),
        "maxTime" => s.max_time = Some(Duration::from_secs_f64(positive(num()?)?.min(1e9))),
        "cpuctExploration" => s.search.c_puct_init = num()? as f32,
        "cpuctExplorationLog" => s.search.c_puct_log = num()? as f32,
        "cpuctExplorationBase" => s.search.c_puct_base = positive(num()?)?.max(1.0) as f32,
        "fpuReductionMax" => s.search.fpu_reduction = num()? as f32,
        "rootFpuReductionMax" => s.search.root_fpu_reduction = num()? as f32,
        "lcbStdevs" => s.search.lcb_z = positive(num()?)? as f32,
        "minVisitPropForLCB" => s.search.lcb_min_fraction = positive(num()?)? as f32,
        "useLcbForSelection" => {
            s.search.lcb_check = match text.trim().to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(format!("{key}: expected true or false, got '{text}'")),
            }
        }
        "analysisPVLen" => s.pv_len = num()?.clamp(1.0, 1000.0) as usize,
        "wideRootNoise" | "analysisWideRootNoise" => {
            s.search.wide_root_noise = positive(num()?)?.min(100.0) as f32
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// An array of integers.
fn int_array(v: &Value) -> Option<Vec<i64>> {
    v.as_array()?.iter().map(Value::as_i64).collect()
}

/// `pass`, a GTP vertex, or KataGo's explicit `(x,y)` (y from the top).
pub fn parse_move(s: &str, size: usize) -> Option<Move> {
    let t = s.trim();
    if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let (x, y) = inner.split_once(',')?;
        let (x, y) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
        return Point::checked(x, y, size).map(Move::Place);
    }
    Move::parse_gtp(t, size)
}
