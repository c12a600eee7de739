//! Turning a search snapshot into KataGo's analysis response JSON.
//!
//! The search reports everything from the root player's view; here each
//! value is turned to the query's `reportAnalysisWinratesAs` perspective
//! (winrate, lcb → 1 − x; score lead, utility, ownership → −x when the
//! perspective is the other player), as KataGo does. Ownership and policy
//! are row-major from the top-left point (A19 on 19×19); the policy has
//! the pass last and −1 for illegal moves.
//!
//! Fields tengen cannot compute are left out rather than faked;
//! `scoreSelfplay` equals `scoreLead` (the nets here predict the lead
//! only), `weight` is the visit count. `scoreStdev` is the spread of the
//! score leads the search backed up (through the move, or at the root),
//! and `ownershipStdev` the spread of the ownership over the root's
//! visits: both from the search, not from a net's own uncertainty head.

use serde_json::{json, Map, Value};

use super::query::TurnJob;
use super::Perspective;
use crate::eval::EvalOutput;
use crate::rules::{Board, Color, Position, Symmetry};
use crate::search::AnalysisSnapshot;

/// What a response needs beyond the snapshot.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// The evaluator's raw output at the root (policy, raw winrate).
    pub root_eval: Option<EvalOutput>,
    /// Per reported move (same order as the snapshot's moves): ownership
    /// after it, +1 for the root player.
    pub moves_ownership: Option<Vec<Vec<f32>>>,
}

/// A float as JSON, rounded to `f32` precision (no `0.60000002384`);
/// non-finite values become 0.
pub fn num(x: f64) -> Value {
    if !x.is_finite() {
        return json!(0.0);
    }
    let short: f64 = (x as f32).to_string().parse().unwrap_or(0.0);
    json!(short)
}

/// The `{"id","turnNumber","isDuringSearch","noResults":true}` reply of a
/// query terminated before it was searched.
pub fn no_results(id: &str, turn: usize) -> Value {
    json!({ "id": id, "turnNumber": turn, "isDuringSearch": false, "noResults": true })
}

/// The search's utility for a winrate and lead (root player's view):
/// win − loss plus the score term, as `src/search` defines it.
fn utility(winrate: f64, lead: f64, size: usize, score_weight: f64) -> f64 {
    let scale = 20.0 * size as f64 / 19.0;
    (2.0 * winrate - 1.0) + score_weight * std::f64::consts::FRAC_2_PI * (lead / scale).atan()
}

/// The analysis response for one turn.
pub fn analysis(job: &TurnJob, snap: &AnalysisSnapshot, during: bool, extras: &Extras) -> Value {
    let s = &job.settings;
    let pos = &job.position;
    let size = pos.size();
    let me = pos.to_move();
    let flip = match s.perspective {
        Perspective::Black => me == Color::White,
        Perspective::White => me == Color::Black,
        Perspective::SideToMove => false,
    };
    let sign = if flip { -1.0 } else { 1.0 };
    let wr = |w: f64| if flip { 1.0 - w } else { w };
    let su = s.search.score_utility as f64;

    let mut infos = Vec::with_capacity(snap.moves.len());
    for (i, m) in snap.moves.iter().enumerate() {
        let (w, lead, lcb) = (m.winrate as f64, m.score_lead as f64, m.lcb as f64);
        let pv: Vec<String> =
            m.pv.iter()
                .take(s.pv_len.saturating_add(1))
                .map(|mv| mv.to_gtp(size))
                .collect();
        let mut info = Map::new();
        info.insert("move".into(), json!(m.mv.to_gtp(size)));
        info.insert("visits".into(), json!(m.visits));
        info.insert("edgeVisits".into(), json!(m.visits));
        info.insert("weight".into(), num(m.visits as f64));
        info.insert("winrate".into(), num(wr(w)));
        info.insert("scoreLead".into(), num(sign * lead));
        info.insert("scoreMean".into(), num(sign * lead));
        info.insert("scoreSelfplay".into(), num(sign * lead));
        info.insert("scoreStdev".into(), num(m.score_stdev as f64));
        info.insert("prior".into(), num(m.prior as f64));
        info.insert("lcb".into(), num(wr(lcb)));
        info.insert("utility".into(), num(sign * utility(w, lead, size, su)));
        info.insert(
            "utilityLcb".into(),
            num(sign * utility(lcb, lead, size, su)),
        );
        info.insert("order".into(), json!(m.order));
        info.insert("pv".into(), json!(pv));
        if s.include_pv_visits {
            let visits: Vec<u64> = m.pv_visits.iter().take(pv.len()).copied().collect();
            info.insert("pvVisits".into(), json!(visits));
            info.insert("pvEdgeVisits".into(), json!(visits));
        }
        if let Some(owns) = extras.moves_ownership.as_ref().and_then(|o| o.get(i)) {
            info.insert("ownership".into(), ownership(owns, sign, size));
        }
        infos.push(Value::Object(info));
    }

    let (w, lead) = (snap.winrate as f64, snap.score_lead as f64);
    let mut root = Map::new();
    root.insert("currentPlayer".into(), json!(me.letter().to_string()));
    root.insert("visits".into(), json!(snap.visits));
    root.insert("weight".into(), num(snap.visits as f64));
    root.insert("winrate".into(), num(wr(w)));
    root.insert("scoreLead".into(), num(sign * lead));
    root.insert("scoreMean".into(), num(sign * lead));
    root.insert("scoreSelfplay".into(), num(sign * lead));
    root.insert("scoreStdev".into(), num(snap.score_stdev as f64));
    root.insert("utility".into(), num(sign * utility(w, lead, size, su)));
    if let Some(top) = snap.moves.first() {
        root.insert("lcb".into(), num(wr(top.lcb as f64)));
    }
    if let Some(raw) = &extras.root_eval {
        let raw_w = 0.5 + 0.5 * (raw.value[0] as f64 - raw.value[1] as f64);
        root.insert("rawWinrate".into(), num(wr(raw_w)));
        root.insert("rawLead".into(), num(sign * raw.score_lead as f64));
        root.insert("rawScoreSelfplay".into(), num(sign * raw.score_lead as f64));
        root.insert("rawNoResultProb".into(), num(raw.value[2] as f64));
    }
    let (this, sym) = hashes(pos);
    root.insert("thisHash".into(), json!(this));
    root.insert("symHash".into(), json!(sym));

    let mut out = Map::new();
    out.insert("id".into(), json!(job.id));
    out.insert("turnNumber".into(), json!(job.turn_number));
    out.insert("isDuringSearch".into(), json!(during));
    out.insert("moveInfos".into(), Value::Array(infos));
    out.insert("rootInfo".into(), Value::Object(root));
    if s.include_ownership {
        let zeros = vec![0.0; size * size];
        let own = snap.ownership.as_deref().unwrap_or(&zeros);
        out.insert("ownership".into(), ownership(own, sign, size));
    }
    if s.include_ownership_stdev {
        let zeros = vec![0.0; size * size];
        let sd = snap.ownership_stdev.as_deref().unwrap_or(&zeros);
        out.insert("ownershipStdev".into(), ownership(sd, 1.0, size));
    }
    if s.include_policy {
        if let Some(raw) = &extras.root_eval {
            out.insert("policy".into(), policy(pos, &raw.policy));
        }
    }
    Value::Object(out)
}

/// Ownership (root player's view) in the reported perspective; missing
/// entries read as 0.
fn ownership(own: &[f32], sign: f64, size: usize) -> Value {
    let v: Vec<Value> = (0..size * size)
        .map(|i| num(sign * own.get(i).copied().unwrap_or(0.0).clamp(-1.0, 1.0) as f64))
        .collect();
    Value::Array(v)
}

/// The raw policy over legal moves (renormalised), −1 for illegal ones.
pub fn policy(pos: &Position, raw: &[f32]) -> Value {
    let size = pos.size();
    let n = size * size + 1;
    let mut legal = vec![false; n];
    for mv in pos.legal_moves() {
        legal[crate::eval::policy_index(mv, size)] = true;
    }
    let p = |i: usize| {
        raw.get(i)
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .unwrap_or(0.0) as f64
    };
    let total: f64 = (0..n).filter(|&i| legal[i]).map(p).sum();
    let count = legal.iter().filter(|&&l| l).count().max(1) as f64;
    let v: Vec<Value> = (0..n)
        .map(|i| match (legal[i], total > 0.0) {
            (false, _) => json!(-1),
            (true, true) => num(p(i) / total),
            (true, false) => num(1.0 / count),
        })
        .collect();
    Value::Array(v)
}

/// `thisHash` (stones, player to move, ko point) and `symHash` (the least
/// over the 8 symmetries), 32 hex digits each like KataGo's.
fn hashes(pos: &Position) -> (String, String) {
    let size = pos.size();
    let board = pos.board();
    let ko = board.ko_point().map_or(0u64, |p| p.dense(size) as u64 + 1);
    let me = pos.to_move();
    let hash_of = |sym: Symmetry| -> u64 {
        let mut b = Board::new(size);
        for p in board.points() {
            if let Some(c) = board.get(p) {
                b.set(sym.apply(p, size), Some(c));
            }
        }
        Position::from_board(b, me, *pos.rules()).hash()
    };
    let mix = |h: u64| h.rotate_left(17) ^ 0x9E37_79B9_7F4A_7C15;
    let this = format!("{:016X}{:016X}", pos.hash(), mix(pos.hash()) ^ ko);
    let sym_h = Symmetry::ALL.iter().map(|&s| hash_of(s)).min().unwrap_or(0);
    let sym = format!("{:016X}{:016X}", sym_h, mix(sym_h));
    (this, sym)
}
