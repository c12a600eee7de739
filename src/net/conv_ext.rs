//! The training step's 3×3 "same" convolutions on the CPU, on the fast
//! path's Winograd kernels, as a burn backend extension with its own
//! backward pass.
//!
//! burn flex computes a convolution and its two gradients by im2col and
//! general matrix products: the human-data run spent about 85% of each
//! step there at ~10% of the machine's fp32 peak. Here:
//!
//! - forward, `y = conv(x, w)`: the Winograd convolution of
//!   [`super::fast::conv::Conv3`], batches split over the rayon pool;
//! - input gradient: the same convolution of the output gradient with the
//!   kernels transposed (input ↔ output channel) and turned 180°;
//! - weight gradient: with input and output gradient copied channel-major
//!   onto the boards padded by one point (a channel is one row), each of
//!   the 9 kernel offsets is one matrix product `G · Xᵀ`, where `X` is the
//!   padded input shifted by the offset's columns. The border of `G` is
//!   zero, so the shifted columns that fall outside a board count nothing.
//!
//! Only tensors on an autodiff device over flex take this route (see
//! [`applies`]): burn's own convolution stays the reference that the fast
//! path and this module are tested against, and wgpu keeps burn's kernels.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::autodiff::Autodiff;
use burn::backend::flex::FlexTensor;
use burn::backend::ops::{ConvOptions, FloatTensorOps, ModuleOps};
use burn::backend::tensor::FloatTensor;
use burn::backend::{backend_extension, Backend, Dispatch, DispatchDevice, Flex, TensorMetadata};
use burn::tensor::{DType, Tensor, TensorData};
use rayon::prelude::*;

use super::config::Activation;
use super::fast::conv::{grow, Conv3, ConvScratch};
use super::fast::epi::Epi;
use super::fast::gemm::{matmul, View};
use super::fast::transpose::transpose;

/// Boards per task: the Winograd buffers of a few boards stay in the
/// caches, and two cores still get a dozen tasks from a batch of 128.
const CHUNK: usize = 8;

/// The extension: a 3×3 convolution with "same" padding and no bias, and
/// its weight gradient.
#[backend_extension(Flex, Autodiff)]
pub trait Conv3Ops: Backend {
    /// `x` `[b, cin, h, w]`, `w` `[cout, cin, 3, 3]` → `[b, cout, h, w]`.
    fn conv3(x: FloatTensor<Self>, w: FloatTensor<Self>) -> FloatTensor<Self>;

    /// The gradient of [`Conv3Ops::conv3`]'s kernels: `x` `[b, cin, h, w]`,
    /// `g` (the output's gradient) `[b, cout, h, w]` → `[cout, cin, 3, 3]`.
    fn conv3_weight_grad(x: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self>;
}

thread_local! {
    /// This thread's choice, over the environment's (see [`set_enabled`]).
    static CHOICE: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Turns the extension on or off for the convolutions that the calling
/// thread runs forward (their backward passes follow); `tengen-train
/// bench-train` measures both. Otherwise `TENGEN_BURN_CONV=1` turns it
/// off. Per thread, so that tests running side by side do not switch each
/// other's route.
/// `None` hands the choice back to the environment. Returns the choice
/// it replaces, so a caller can put it back.
pub fn set_enabled(on: Option<bool>) -> Option<bool> {
    CHOICE.replace(on)
}

fn enabled() -> bool {
    static FROM_ENV: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    CHOICE
        .get()
        .unwrap_or_else(|| *FROM_ENV.get_or_init(|| std::env::var_os("TENGEN_BURN_CONV").is_none()))
}

/// Threads the extension splits a batch over (rayon's pool, which burn
/// flex uses too: `RAYON_NUM_THREADS`).
pub fn threads() -> usize {
    rayon::current_num_threads()
}

/// Whether [`conv3`] takes `x`: a tensor on an autodiff device over flex,
/// with the extension on.
pub fn applies(x: &Tensor<4>) -> bool {
    if !enabled() {
        return false;
    }
    match x.device().as_dispatch() {
        DispatchDevice::Autodiff(ad) => matches!(**ad, DispatchDevice::Flex(_)),
        _ => false,
    }
}

/// `x` `[b, cin, h, w]` convolved with `w` `[cout, cin, 3, 3]`, padding 1,
/// through the extension (differentiable on an autodiff device).
pub fn conv3(x: Tensor<4>, w: Tensor<4>) -> Tensor<4> {
    Tensor::from_dispatch(<Dispatch as Conv3Ops>::conv3(
        x.into_dispatch(),
        w.into_dispatch(),
    ))
}

fn same3() -> ConvOptions<2> {
    ConvOptions::new([1, 1], [1, 1], [1, 1], 1)
}

fn dims4(t: &impl TensorMetadata) -> [usize; 4] {
    let s = t.shape();
    [s[0], s[1], s[2], s[3]]
}

/// `t`'s values when it holds f32 (copied into row-major order if it was
/// a view).
fn values(t: &FlexTensor) -> Option<FlexTensor> {
    if t.dtype() != DType::F32 {
        return None;
    }
    let c = t.to_contiguous();
    c.as_slice::<f32>().is_some().then_some(c)
}

impl Conv3Ops for Flex {
    fn conv3(x: FlexTensor, w: FlexTensor) -> FlexTensor {
        let (Some(xv), Some(wv)) = (values(&x), values(&w)) else {
            return <Flex as ModuleOps<Flex>>::conv2d(x, w, None, same3());
        };
        let [b, cin, h, wd] = dims4(&x);
        let cout = dims4(&w)[0];
        let y = forward(
            xv.as_slice().expect("contiguous f32"),
            wv.as_slice().expect("contiguous f32"),
            [b, cin, cout, h, wd],
        );
        FlexTensor::from_data(TensorData::new(y, [b, cout, h, wd]))
    }

    fn conv3_weight_grad(x: FlexTensor, g: FlexTensor) -> FlexTensor {
        let [b, cin, h, wd] = dims4(&x);
        let cout = dims4(&g)[1];
        let (Some(xv), Some(gv)) = (values(&x), values(&g)) else {
            let w = <Flex as FloatTensorOps<Flex>>::float_zeros(
                [cout, cin, 3, 3].into(),
                &Default::default(),
                x.dtype().into(),
            );
            return <Flex as ModuleOps<Flex>>::conv2d_weight_backward(x, w, g, same3());
        };
        let gw = weight_grad(
            xv.as_slice().expect("contiguous f32"),
            gv.as_slice().expect("contiguous f32"),
            [b, cin, cout, h, wd],
        );
        FlexTensor::from_data(TensorData::new(gw, [cout, cin, 3, 3]))
    }
}

impl<B: Backend + Conv3Ops, C: CheckpointStrategy> Conv3Ops for Autodiff<B, C> {
    fn conv3(x: FloatTensor<Self>, w: FloatTensor<Self>) -> FloatTensor<Self> {
        #[derive(Debug)]
        struct Conv3Backward;

        impl<B: Backend + Conv3Ops> Backward<B, 2> for Conv3Backward {
            type State = (
                burn::backend::autodiff::NodeId,
                burn::backend::autodiff::NodeId,
            );

            fn backward(
                self,
                ops: Ops<Self::State, 2>,
                grads: &mut Gradients,
                checkpointer: &mut Checkpointer,
            ) {
                let [node_x, node_w] = ops.parents;
                let grad = grads.consume::<B>(&ops.node);
                let (x_state, w_state) = ops.state;
                let x = checkpointer.retrieve_node_output::<B::FloatTensorPrimitive>(x_state);
                let w = checkpointer.retrieve_node_output::<B::FloatTensorPrimitive>(w_state);
                if let Some(node) = node_x {
                    // Transposed channels, kernel turned 180°.
                    let wt = B::float_flip(B::float_swap_dims(w, 0, 1), &[2, 3]);
                    grads.register::<B>(node.id, B::conv3(grad.clone(), wt));
                }
                if let Some(node) = node_w {
                    grads.register::<B>(node.id, B::conv3_weight_grad(x, grad));
                }
            }
        }

        match Conv3Backward
            .prepare::<C>([x.node(), w.node()])
            .compute_bound()
            .stateful()
        {
            OpsKind::Tracked(mut prep) => {
                let x_state = prep.checkpoint(&x);
                let w_state = prep.checkpoint(&w);
                prep.finish(
                    (x_state, w_state),
                    B::conv3(x.into_primitive(), w.into_primitive()),
                )
            }
            OpsKind::UnTracked(prep) => {
                prep.finish(B::conv3(x.into_primitive(), w.into_primitive()))
            }
        }
    }

    fn conv3_weight_grad(x: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        // A gradient is not differentiated again: the result is a constant
        // of the graph.
        #[derive(Debug)]
        struct NoBackward;

        impl<B: Backend> Backward<B, 2> for NoBackward {
            type State = ();

            fn backward(self, _: Ops<(), 2>, _: &mut Gradients, _: &mut Checkpointer) {}
        }

        let nodes = [x.node(), g.node()];
        let out = B::conv3_weight_grad(x.into_primitive(), g.into_primitive());
        NoBackward
            .prepare::<C>(nodes)
            .compute_bound()
            .stateless(out)
    }
}

/// Each board of `x`, a `rows × cols` matrix, transposed into `out`:
/// `[b][c][p]` → `[b][p][c]` with `(rows, cols) = (c, p)`, and back with
/// `(p, c)`.
fn per_board_transpose(x: &[f32], rows: usize, cols: usize, out: &mut [f32]) {
    let n = rows * cols;
    for (xb, ob) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
        transpose(xb, rows, cols, ob);
    }
}

/// Buffers a task reuses from call to call (each thread of the pool keeps
/// its own): allocating and zeroing fresh ones per task cost ~10% of a
/// training step in page faults.
#[derive(Default)]
struct Buffers {
    a: Vec<f32>,
    b: Vec<f32>,
    conv: ConvScratch,
}

thread_local! {
    static BUFFERS: std::cell::RefCell<Buffers> = Default::default();
}

/// The `h × w` board `src` into `dst`, `(h + 2) × (w + 2)`, with a border
/// of zeros.
fn pad_board(src: &[f32], h: usize, w: usize, dst: &mut [f32]) {
    let pw = w + 2;
    dst[..pw].fill(0.0);
    dst[(h + 1) * pw..].fill(0.0);
    for (row, s) in dst[pw..(h + 1) * pw]
        .chunks_exact_mut(pw)
        .zip(src.chunks_exact(w))
    {
        row[0] = 0.0;
        row[pw - 1] = 0.0;
        copy_short(&mut row[1..=w], s);
    }
}

/// `dst.copy_from_slice(src)` for a board row, as two or three fixed
/// 8-value moves (overlapping where the width is not a multiple of 8)
/// that compile inline, where a call to `memcpy` for every 9 or 19
/// values cost ~4% of a training step. (A loop of such moves is turned
/// back into a `memcpy` call by LLVM, so there is none.)
#[inline(always)]
fn copy_short(dst: &mut [f32], src: &[f32]) {
    #[inline(always)]
    fn eight(dst: &mut [f32], src: &[f32], at: usize) {
        let block: [f32; 8] = src[at..at + 8].try_into().expect("8 values");
        dst[at..at + 8].copy_from_slice(&block);
    }
    let n = src.len();
    match n {
        8..=16 => {
            eight(dst, src, 0);
            eight(dst, src, n - 8);
        }
        17..=24 => {
            eight(dst, src, 0);
            eight(dst, src, 8);
            eight(dst, src, n - 8);
        }
        _ => dst[..n].copy_from_slice(src),
    }
}

/// `conv(x, w)` for `x` `[b][cin][h][w]` and `w` `[cout][cin][3][3]`
/// (`dims` = `[b, cin, cout, h, w]`), into `[b][cout][h][w]`.
pub fn forward(x: &[f32], w: &[f32], dims: [usize; 5]) -> Vec<f32> {
    let [b, cin, cout, h, wd] = dims;
    let p = h * wd;
    let conv = Conv3::new(w, cin, cout, &vec![1.0; cout], &vec![0.0; cout]);
    let mut y = vec![0.0; b * cout * p];
    if b == 0 || p == 0 {
        return y;
    }
    y.par_chunks_mut(CHUNK * cout * p)
        .zip(x.par_chunks(CHUNK * cin * p))
        .for_each(|(yc, xc)| {
            BUFFERS.with_borrow_mut(|bufs| {
                let nb = xc.len() / (cin * p);
                let Buffers {
                    a,
                    b,
                    conv: scratch,
                } = bufs;
                // Both are overwritten whole: no zeroing.
                let xs = grow(a, xc.len());
                per_board_transpose(xc, cin, p, xs);
                let ys = grow(b, yc.len());
                let mut epi = Epi::Store {
                    out: ys,
                    stride: cout,
                    act: Activation::Identity,
                    act_from: cout,
                };
                conv.run(xs, cin, nb, h, wd, scratch, &mut epi);
                per_board_transpose(ys, p, cout, yc);
            })
        });
    y
}

/// The gradient of [`forward`]'s kernels, `[cout][cin][3][3]`, from `x`
/// `[b][cin][h][w]` and the output's gradient `g` `[b][cout][h][w]`.
pub fn weight_grad(x: &[f32], g: &[f32], dims: [usize; 5]) -> Vec<f32> {
    let [b, cin, cout, h, wd] = dims;
    let p = h * wd;
    if b == 0 || p == 0 {
        return vec![0.0; cout * cin * 9];
    }
    let (ph, pw) = (h + 2, wd + 2);
    // Columns before and after the padded boards, so that every shifted
    // view stays inside a channel's row.
    let guard = pw + 1;
    let per_offset = x
        .par_chunks(CHUNK * cin * p)
        .zip(g.par_chunks(CHUNK * cout * p))
        .map(|(xc, gc)| {
            BUFFERS.with_borrow_mut(|bufs| {
                let nb = xc.len() / (cin * p);
                let cols = nb * ph * pw;
                let xw = cols + 2 * guard;
                // Channel-major, boards side by side, each padded by one
                // point: a channel is one row of `cols` (+ guards) values.
                // Every value is written (padding and guards as zeros), so
                // the reused buffers need no clearing.
                let xp = grow(&mut bufs.a, cin * xw);
                let gp = grow(&mut bufs.b, cout * cols);
                for (ci, row) in xp.chunks_exact_mut(xw).enumerate() {
                    row[..guard].fill(0.0);
                    row[guard + cols..].fill(0.0);
                    for (bi, board) in row[guard..guard + cols]
                        .chunks_exact_mut(ph * pw)
                        .enumerate()
                    {
                        pad_board(&xc[(bi * cin + ci) * p..][..p], h, wd, board);
                    }
                }
                for (co, row) in gp.chunks_exact_mut(cols).enumerate() {
                    for (bi, board) in row.chunks_exact_mut(ph * pw).enumerate() {
                        pad_board(&gc[(bi * cout + co) * p..][..p], h, wd, board);
                    }
                }
                let mut acc = vec![0.0; 9 * cout * cin];
                for (k, out) in acc.chunks_exact_mut(cout * cin).enumerate() {
                    let (dy, dx) = (k / 3, k % 3);
                    // Column of the input under kernel tap (dy, dx) of the
                    // output at padded column q: q + (dy - 1) * pw + dx - 1.
                    let start = guard + dy * pw + dx - pw - 1;
                    matmul(
                        cout,
                        cin,
                        cols,
                        View::rows(gp, cols),
                        View {
                            data: &xp[start..],
                            rs: 1,
                            cs: xw,
                        },
                        out,
                        cin,
                        false,
                    );
                }
                acc
            })
        })
        .reduce(
            || vec![0.0; 9 * cout * cin],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
                a
            },
        );
    let mut gw = vec![0.0; cout * cin * 9];
    for k in 0..9 {
        for co in 0..cout {
            for ci in 0..cin {
                gw[(co * cin + ci) * 9 + k] = per_offset[(k * cout + co) * cin + ci];
            }
        }
    }
    gw
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::module::conv2d;
    use burn::tensor::Device;

    fn random(shape: [usize; 4], seed: u32, dev: &Device) -> Tensor<4> {
        let mut next = crate::net::fast::uniform_values(seed);
        let n = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|_| next()).collect();
        Tensor::from_data(TensorData::new(v, shape), dev)
    }

    fn values(t: Tensor<4>) -> Vec<f32> {
        t.into_data().iter::<f32>().collect()
    }

    /// Largest difference relative to the largest magnitude.
    fn rel_diff(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        let scale = a.iter().fold(1e-6f32, |m, v| m.max(v.abs()));
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
            / scale
    }

    #[test]
    fn matches_burns_convolution_and_both_gradients() {
        let dev = Device::flex().autodiff();
        // Odd channel counts (the general product), both Winograd
        // variants' board sizes, and more boards than a task takes.
        for (i, &(b, cin, cout, h, w)) in [
            (1, 1, 1, 1, 1),
            (2, 3, 5, 4, 4),
            (3, 16, 32, 9, 9),
            (2, 7, 4, 5, 8),
            (CHUNK + 3, 64, 64, 19, 19),
            (4, 22, 64, 13, 13),
        ]
        .iter()
        .enumerate()
        {
            let seed = 10 * i as u32;
            let x = random([b, cin, h, w], seed, &dev);
            let k = random([cout, cin, 3, 3], seed + 1, &dev);
            let r = random([b, cout, h, w], seed + 2, &dev);

            let (x1, k1) = (x.clone().require_grad(), k.clone().require_grad());
            let y1 = conv2d(x1.clone(), k1.clone(), None, same3());
            let g1 = (y1.clone() * r.clone()).sum().backward();

            let (x2, k2) = (x.require_grad(), k.require_grad());
            assert!(applies(&x2));
            let y2 = conv3(x2.clone(), k2.clone());
            let g2 = (y2.clone() * r).sum().backward();

            let case = format!("b {b} cin {cin} cout {cout} {h}x{w}");
            let d = rel_diff(&values(y1.inner()), &values(y2.inner()));
            assert!(d < 1e-4, "{case}: output off by {d}");
            let d = rel_diff(
                &values(x1.grad(&g1).unwrap()),
                &values(x2.grad(&g2).unwrap()),
            );
            assert!(d < 1e-4, "{case}: input gradient off by {d}");
            let d = rel_diff(
                &values(k1.grad(&g1).unwrap()),
                &values(k2.grad(&g2).unwrap()),
            );
            assert!(d < 1e-4, "{case}: weight gradient off by {d}");
        }
    }

    #[test]
    fn only_autodiff_flex_tensors_take_the_extension() {
        let x = Tensor::<4>::zeros([1, 1, 3, 3], &Device::flex());
        assert!(!applies(&x), "inference on flex keeps burn's convolution");
    }
}
