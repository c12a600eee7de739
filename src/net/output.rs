//! KataGo's output post-processing (`nneval.cpp`): policy softmax over
//! legal moves with the optimistic-policy blend, win/loss/no-result
//! softmax, score scaling, ownership tanh; and the `kata-raw-nn` text.

use std::fmt::Write;

use super::config::PostProcess;
use super::model::RawOutput;
use crate::rules::Color;

/// KataGo's `NNOutput` for one position, in white's view except the
/// policy (player to move).
#[derive(Clone, Debug, PartialEq)]
pub struct NetOutput {
    pub size: usize,
    /// `size*size + 1` probabilities, pass last, dense point order; -1 for
    /// illegal moves.
    pub policy: Vec<f32>,
    pub white_win: f32,
    pub white_loss: f32,
    pub no_result: f32,
    pub white_lead: f32,
    pub white_score_mean: f32,
    pub white_score_mean_sq: f32,
    pub var_time_left: f32,
    pub shortterm_winloss_error: f32,
    pub shortterm_score_error: f32,
    /// `size*size`, +1 = white owns.
    pub white_ownership: Vec<f32>,
}

fn softplus(x: f64) -> f64 {
    if x > 40.0 {
        x
    } else {
        (1.0 + x.exp()).ln()
    }
}

/// Post-processes row `row` of `raw`. `legal` has `size*size + 1`
/// entries (pass last); `no_result_possible` is false under superko with
/// area scoring (KataGo then forces the no-result probability to 0).
pub fn postprocess(
    raw: &RawOutput,
    row: usize,
    legal: &[bool],
    to_move: Color,
    optimism: f32,
    post: &PostProcess,
    no_result_possible: bool,
) -> NetOutput {
    let n = raw.size * raw.size;
    let ch = raw.policy_channels;
    let base = row * ch * n;
    let blend = |p: f32, opt: Option<f32>| match opt {
        Some(o) => p + (o - p) * optimism,
        None => p,
    };
    let mut logits: Vec<f32> = (0..n)
        .map(|i| {
            let opt = (ch >= 2).then(|| raw.policy[base + n + i]);
            blend(raw.policy[base + i], opt)
        })
        .collect();
    let pass_opt = (ch >= 2).then(|| raw.pass[row * ch + 1]);
    logits.push(blend(raw.pass[row * ch], pass_opt));
    let max = logits
        .iter()
        .zip(legal)
        .filter(|(_, &l)| l)
        .map(|(&v, _)| v)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut policy: Vec<f32> = logits
        .iter()
        .zip(legal)
        .map(|(&v, &l)| if l { (v - max).exp() } else { 0.0 })
        .collect();
    let sum: f32 = policy.iter().sum();
    for (p, &l) in policy.iter_mut().zip(legal) {
        *p = if l { *p / sum } else { -1.0 };
    }

    let v = &raw.value[row * 3..row * 3 + 3];
    let m = &raw.misc[row * 6..row * 6 + 6];
    let (win_l, loss_l) = (v[0] as f64, v[1] as f64);
    let mut nr_l = v[2] as f64;
    if !no_result_possible {
        nr_l -= 100000.0;
    }
    let mx = win_l.max(loss_l).max(nr_l);
    let (mut win, mut loss, mut nr) = ((win_l - mx).exp(), (loss_l - mx).exp(), (nr_l - mx).exp());
    if !no_result_possible {
        nr = 0.0;
    }
    let s = win + loss + nr;
    win /= s;
    loss /= s;
    nr /= s;
    let mut score_mean = m[0] as f64 * post.score_mean_multiplier as f64;
    let stdev = softplus(m[1] as f64) * post.score_stdev_multiplier as f64;
    let mut score_sq = score_mean * score_mean + stdev * stdev;
    let mut lead = m[2] as f64 * post.lead_multiplier as f64;
    let var_time = softplus(m[3] as f64) * post.variance_time_multiplier as f64;
    score_mean *= 1.0 - nr;
    score_sq *= 1.0 - nr;
    lead *= 1.0 - nr;
    let s4 = softplus(m[4] as f64 * 0.5);
    let st_wl = (s4 * s4 * post.shortterm_value_error_multiplier as f64).sqrt();
    let s5 = softplus(m[5] as f64 * 0.5);
    let st_score = (s5 * s5 * post.shortterm_score_error_multiplier as f64).sqrt();
    let white = to_move == Color::White;
    let sign = if white { 1.0 } else { -1.0 };
    let own = &raw.ownership[row * n..row * n + n];
    NetOutput {
        size: raw.size,
        policy,
        white_win: if white { win } else { loss } as f32,
        white_loss: if white { loss } else { win } as f32,
        no_result: nr as f32,
        white_lead: (sign * lead) as f32,
        white_score_mean: (sign * score_mean) as f32,
        white_score_mean_sq: score_sq as f32,
        var_time_left: var_time as f32,
        shortterm_winloss_error: st_wl as f32,
        shortterm_score_error: st_score as f32,
        white_ownership: own.iter().map(|&x| sign as f32 * x.tanh()).collect(),
    }
}

/// The answer to `kata-raw-nn SYMMETRY` in KataGo's format (without the
/// leading `= `), byte for byte what KataGo prints for the same numbers.
/// `symmetry` is KataGo's number (see [`super::symmetry::from_katago`]);
/// the outputs must already be in the board's orientation, as
/// [`super::NetEvaluator::raw_nn`] returns them.
pub fn format_kata_raw_nn(out: &NetOutput, symmetry: usize) -> String {
    let n = out.size;
    let mut s = String::new();
    let _ = writeln!(s, "symmetry {symmetry}");
    let _ = writeln!(s, "whiteWin {:.6}", out.white_win);
    let _ = writeln!(s, "whiteLoss {:.6}", out.white_loss);
    let _ = writeln!(s, "noResult {:.6}", out.no_result);
    let _ = writeln!(s, "whiteLead {:.3}", out.white_lead);
    let _ = writeln!(s, "whiteScoreSelfplay {:.3}", out.white_score_mean);
    let _ = writeln!(s, "whiteScoreSelfplaySq {:.3}", out.white_score_mean_sq);
    let _ = writeln!(s, "varTimeLeft {:.3}", out.var_time_left);
    let _ = writeln!(
        s,
        "shorttermWinlossError {:.3}",
        out.shortterm_winloss_error
    );
    let _ = writeln!(s, "shorttermScoreError {:.3}", out.shortterm_score_error);
    let _ = writeln!(s, "policy");
    let prob = |s: &mut String, p: f32| {
        if p < 0.0 {
            s.push_str("    NAN ");
        } else {
            let _ = write!(s, "{p:8.6} ");
        }
    };
    for y in 0..n {
        for x in 0..n {
            prob(&mut s, out.policy[y * n + x]);
        }
        s.push('\n');
    }
    s.push_str("policyPass ");
    prob(&mut s, out.policy[n * n]);
    s.push('\n');
    let _ = writeln!(s, "whiteOwnership");
    for y in 0..n {
        for x in 0..n {
            let _ = write!(s, "{:9.7} ", out.white_ownership[y * n + x]);
        }
        s.push('\n');
    }
    s.trim().to_string()
}
