//! The training losses, KataGo's family, on raw head outputs:
//! - policy: cross-entropy of softmax(board logits ++ pass logit) of
//!   policy channel 0 against the (pruned) visit distribution, for
//!   full-search positions only;
//! - optimistic policy (channel 1, when the net has it): the same target
//!   at weight 0.25, so the inference-time optimism blend stays harmless;
//! - opponent policy (auxiliary head): cross-entropy against the
//!   opponent's actual reply, weight 0.15;
//! - value: cross-entropy of softmax(win, loss, no-result) against the
//!   game result (a draw is half win, half loss), weight 1.5;
//! - score: Huber (δ = 1) on score mean and lead outputs (both ×20
//!   points, as post-processing scales them) against the final margin in
//!   units of 20 points, weight 0.5 each;
//! - ownership: binary cross-entropy of (1 + tanh x)/2 = sigmoid(2x)
//!   against (1 + owner)/2, mean over points, weight 1.5.
//!
//! Each term is averaged over the rows of the batch (rows whose target is
//! unknown count as zero).

use burn::tensor::activation::{log_softmax, relu};
use burn::tensor::{Device, Tensor, TensorData};

use super::data::Batch;
use crate::model::TrainOutputs;

pub const W_OPT: f32 = 0.25;
pub const W_OPP: f32 = 0.15;
pub const W_VALUE: f32 = 1.5;
pub const W_SCORE: f32 = 0.5;
pub const W_OWN: f32 = 1.5;
/// Points per score unit (KataGo's score multipliers).
pub const SCORE_SCALE: f32 = 20.0;

/// Loss terms (unweighted means) and the weighted total.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LossReport {
    pub total: f32,
    pub policy: f32,
    pub opp: f32,
    pub value: f32,
    pub score: f32,
    pub ownership: f32,
}

impl LossReport {
    /// Element-wise sum (for averaging).
    pub fn add(&mut self, o: &LossReport) {
        self.total += o.total;
        self.policy += o.policy;
        self.opp += o.opp;
        self.value += o.value;
        self.score += o.score;
        self.ownership += o.ownership;
    }

    pub fn scale(&mut self, k: f32) {
        self.total *= k;
        self.policy *= k;
        self.opp *= k;
        self.value *= k;
        self.score *= k;
        self.ownership *= k;
    }
}

fn t1(v: &[f32], device: &Device) -> Tensor<1> {
    Tensor::from_data(TensorData::new(v.to_vec(), [v.len()]), device)
}

fn t2(v: &[f32], rows: usize, cols: usize, device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v.to_vec(), [rows, cols]), device)
}

/// Input tensors of a batch: spatial `[b, planes, s, s]`, global `[b, g]`.
pub fn inputs(batch: &Batch, planes: usize, device: &Device) -> (Tensor<4>, Tensor<2>) {
    let s = batch.size;
    let x = Tensor::from_data(
        TensorData::new(batch.spatial.clone(), [batch.rows, planes, s, s]),
        device,
    );
    let g = t2(
        &batch.global,
        batch.rows,
        batch.global.len() / batch.rows.max(1),
        device,
    );
    (x, g)
}

/// Soft cross-entropy per row: `-(target * log_softmax(logits)).sum`.
fn soft_ce(logits: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    let [b, _] = logits.dims();
    (target * log_softmax(logits, 1)).sum_dim(1).reshape([b]) * -1.0
}

/// `log(1 + exp(z))`, stable.
fn softplus(z: Tensor<2>) -> Tensor<2> {
    relu(z.clone()) + z.abs().neg().exp().log1p()
}

fn huber(d: Tensor<1>) -> Tensor<1> {
    let a = d.abs();
    let q = a.clone().clamp_max(1.0);
    q.clone() * q.clone() * 0.5 + (a - q)
}

/// Board logits of `channel` plus its pass logit: `[b, n + 1]`.
fn move_logits(board: &Tensor<4>, pass: &Tensor<2>, channel: usize) -> Tensor<2> {
    let [b, _, h, w] = board.dims();
    let p = board
        .clone()
        .slice([0..b, channel..channel + 1, 0..h, 0..w])
        .reshape([b, h * w]);
    let ps = pass.clone().slice([0..b, channel..channel + 1]);
    Tensor::cat(vec![p, ps], 1)
}

/// The weighted total loss (a scalar tensor to differentiate) and the
/// report of its terms.
pub fn compute(out: TrainOutputs, batch: &Batch, device: &Device) -> (Tensor<1>, LossReport) {
    let b = batch.rows;
    let n = batch.size * batch.size;
    let inv_b = 1.0 / b as f32;
    let mean_w = |per_row: Tensor<1>, w: &[f32]| (per_row * t1(w, device)).sum() * inv_b;

    let pol_t = t2(&batch.policy, b, n + 1, device);
    let policy = mean_w(
        soft_ce(move_logits(&out.policy, &out.pass, 0), pol_t.clone()),
        &batch.policy_w,
    );
    let channels = out.pass.dims()[1];
    let opt = if channels >= 2 {
        Some(mean_w(
            soft_ce(move_logits(&out.policy, &out.pass, 1), pol_t),
            &batch.policy_w,
        ))
    } else {
        None
    };
    let opp = mean_w(
        soft_ce(
            move_logits(&out.opp_policy, &out.opp_pass, 0),
            t2(&batch.opp, b, n + 1, device),
        ),
        &batch.opp_w,
    );
    let value = mean_w(
        soft_ce(out.value, t2(&batch.value, b, 3, device)),
        &batch.value_w,
    );
    let target = t1(&batch.score, device) / SCORE_SCALE;
    let mean = out.misc.clone().slice([0..b, 0..1]).reshape([b]);
    let lead = out.misc.slice([0..b, 2..3]).reshape([b]);
    let score = mean_w(
        huber(mean - target.clone()) + huber(lead - target),
        &batch.score_w,
    );
    let z = out.ownership.reshape([b, n]) * 2.0;
    let t = (t2(&batch.ownership, b, n, device) + 1.0) * 0.5;
    let bce = (softplus(z.clone()) - t * z).mean_dim(1).reshape([b]);
    let ownership = mean_w(bce, &batch.own_w);

    let mut total = policy.clone()
        + opp.clone() * W_OPP
        + value.clone() * W_VALUE
        + score.clone() * W_SCORE
        + ownership.clone() * W_OWN;
    if let Some(o) = opt {
        total = total + o * W_OPT;
    }
    let host = |t: &Tensor<1>| {
        t.clone()
            .into_data()
            .iter::<f32>()
            .next()
            .unwrap_or(f32::NAN)
    };
    let report = LossReport {
        total: host(&total),
        policy: host(&policy),
        opp: host(&opp),
        value: host(&value),
        score: host(&score),
        ownership: host(&ownership),
    };
    (total, report)
}
