//! The dense layers' matrix product on AVX2 + FMA, with the weights packed
//! once, when the net is loaded, into the order the register tile reads
//! them.
//!
//! Every 1×1 convolution, projection and feed-forward layer is `c[m×n] =
//! a[m×k] · w[k×n]` with `w` fixed and `a` a batch of board points (81 to
//! a few thousand rows), and so is each point of a Winograd convolution
//! (`a` the batch's tiles). A general product (the `gemm` crate) packs both
//! operands on every call; for these shapes that repacking of `w` cost
//! about 12% of a KataGo b10 evaluation on 9×9, more than that once the
//! weights (41 MB for that net) no longer fit the cache: measured on an
//! AVX2 EPYC, this path ran the b10 net on 9×9 at 26.1 evaluations/s
//! against 21.5 on the crate (batch 1; 30.6 against 26.9 at batch 8;
//! medians of five runs alternating, `TENGEN_GEMM=crate` for the crate)
//! and no differently on 19×19, where each weight serves 361 rows.
//!
//! Here `w` is stored as panels of [`NR`] = 16 columns, `[panel][k][16]`
//! on cache-line boundaries (zero-padded past `n`), so a tile streams its
//! panel with aligned, sequential loads; `a` is read in place (or from a
//! packed copy, below). The tile is [`MR`] = 6
//! rows × 16 columns: 12 accumulators, two panel vectors and a broadcast,
//! within AVX2's 16 registers; per step of the depth, 12 FMAs for two
//! loads and six broadcasts. The panels are the outer loop, so one panel
//! (at most 16 KiB for k = 256) stays in L1 while every row tile passes it.
//!
//! Where several panels read the same rows, each L2 block of rows of `a`
//! is first copied tile by tile (`[k][6]`, [`pack_block`]) so that the
//! tile's broadcasts read one sequential stream instead of six rows, and
//! while a panel runs each of its row tiles asks for a share of the next
//! panel's lines (`prefetcht1`), so that the weights, which do not stay
//! in cache from one evaluation to the next, arrive before they are
//! needed. On an AVX2 EPYC the two together made the b10 net 10% faster
//! on 9×9 at batch 1 and 7% at batch 8 (with attention's products moved
//! here; paired medians of 14 alternating rounds; `TENGEN_PACK_A=0` and
//! `TENGEN_PREFETCH=0` turn each off for comparisons: in eight of those
//! rounds each alone was worth about 4 to 10%).
//!
//! [`Panels::pack`] repacks an operand that changes on every call into
//! buffers that are kept: attention's keys (transposed) and values.
//!
//! The same tile runs the Winograd domain's products of the 3×3
//! convolutions (`[points][cin][cout]` kernels, a [`Panels`] per point).
//! Only [`super::conv`] uses this, and only where [`available`]
//! (AVX2 and FMA, no AVX-512: AVX-512 machines keep the `gemm` crate's
//! wider kernels, which is what was measured there).

use std::fmt;

/// Columns per panel (two AVX2 vectors).
pub const NR: usize = 16;
/// Rows per register tile.
pub const MR: usize = 6;

/// One row of a panel, on its own cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([f32; NR]);

/// `w[k×n]` packed as panels of [`NR`] columns.
#[derive(Clone, Default)]
pub struct Panels {
    k: usize,
    n: usize,
    lines: Vec<Line>,
    /// A bias per column, one line per panel (zeros past `n`).
    bias: Vec<Line>,
}

impl fmt::Debug for Panels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Panels({}×{})", self.k, self.n)
    }
}

/// Whether this CPU runs the packed product: AVX2 and FMA and not
/// AVX-512 (see the module docs), unless `TENGEN_GEMM=crate` asks for the
/// `gemm` crate everywhere (to compare the two in one build).
pub fn available() -> bool {
    use std::sync::OnceLock;
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        super::simd::level() == super::simd::Level::Avx2
            && std::env::var("TENGEN_GEMM").as_deref() != Ok("crate")
    })
}

impl Panels {
    /// Packs row-major `w` (`k` rows of `n`) and, for
    /// [`Panels::product`]'s `with_bias`, a bias per column.
    ///
    /// # Panics
    /// When `w` is shorter than `k·n` or `bias` than `n`.
    pub fn new(w: &[f32], k: usize, n: usize, bias: Option<&[f32]>) -> Panels {
        let mut p = Panels::default();
        p.pack(w, n, 1, k, n);
        if let Some(b) = bias {
            assert!(b.len() >= n, "bias shorter than {n}");
            for (line, chunk) in p.bias.iter_mut().zip(b[..n].chunks(NR)) {
                line.0[..chunk.len()].copy_from_slice(chunk);
            }
        }
        p
    }

    /// Packs `w` (`k` rows of `n`, element (i, j) at `i·rs + j·cs`) in
    /// place of what was here, reusing the buffers, with no bias: for
    /// operands that change on every call (attention's keys and values).
    ///
    /// # Panics
    /// When `w` is too short for the shape.
    pub fn pack(&mut self, w: &[f32], rs: usize, cs: usize, k: usize, n: usize) {
        assert!(
            k == 0 || n == 0 || (k - 1) * rs + (n - 1) * cs < w.len(),
            "weights shorter than {k}x{n}"
        );
        let np = n.div_ceil(NR);
        self.k = k;
        self.n = n;
        // Every line is written below, padding included: no clearing pass.
        self.lines.resize(np * k, Line([0.0; NR]));
        self.bias.clear();
        self.bias.resize(np, Line([0.0; NR]));
        for p in 0..np {
            let (j0, cols) = (p * NR, NR.min(n - p * NR));
            for (kk, line) in self.lines[p * k..(p + 1) * k].iter_mut().enumerate() {
                let row = kk * rs + j0 * cs;
                if cs == 1 {
                    line.0[..cols].copy_from_slice(&w[row..row + cols]);
                } else {
                    for (j, x) in line.0[..cols].iter_mut().enumerate() {
                        *x = w[row + j * cs];
                    }
                }
                line.0[cols..].fill(0.0);
            }
        }
    }

    /// `c[m×n] = a[m×k] · w` (plus the bias given to [`Panels::new`] when
    /// `with_bias`), `a` row-major with row stride `lda`, `c` with row
    /// stride `ldc` (overwritten).
    ///
    /// # Panics
    /// When [`available`] is false, or `a` or `c` is too short for the
    /// shape.
    pub fn product(
        &self,
        m: usize,
        a: &[f32],
        lda: usize,
        c: &mut [f32],
        ldc: usize,
        with_bias: bool,
    ) {
        assert!(available(), "the packed product needs AVX2 and FMA");
        let (k, n) = (self.k, self.n);
        if m == 0 || n == 0 {
            return;
        }
        assert!(
            k == 0 || (m - 1) * lda + k <= a.len(),
            "product input too short"
        );
        assert!((m - 1) * ldc + n <= c.len(), "product output too short");
        #[cfg(target_arch = "x86_64")]
        {
            let bias = with_bias.then_some(self.bias.as_ptr());
            let (ap, cp) = (a.as_ptr(), c.as_mut_ptr());
            // SAFETY: AVX2 and FMA are present (`available`); the asserts
            // keep every row of `a` and `c` the product touches inside the
            // slices, `lines` holds `k` lines per panel and `pack` (from
            // below) `block_rows(k) · k` values; `c` is borrowed mutably,
            // so it aliases neither operand.
            let go = |pack: Option<*mut f32>| unsafe {
                run(m, k, n, ap, lda, self.lines.as_ptr(), bias, cp, ldc, pack)
            };
            // Rows are worth packing when several panels read them.
            if n > 2 * NR && pack_rows() {
                A_PACK.with(|buf| {
                    let mut buf = buf.borrow_mut();
                    let need = block_rows(k) * k;
                    if buf.len() < need {
                        buf.resize(need, 0.0);
                    }
                    go(Some(buf.as_mut_ptr()))
                })
            } else {
                go(None)
            }
        }
    }
}

thread_local! {
    /// The current block of rows of `a`, packed tile by tile.
    static A_PACK: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether rows of `a` are packed (`TENGEN_PACK_A=0` turns it off, to
/// compare).
fn pack_rows() -> bool {
    use std::sync::OnceLock;
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("TENGEN_PACK_A").as_deref() != Ok("0"))
}

/// Whether the next panel is prefetched (`TENGEN_PREFETCH=0` turns it
/// off, to compare).
fn prefetch() -> bool {
    use std::sync::OnceLock;
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("TENGEN_PREFETCH").as_deref() != Ok("0"))
}

/// Rows of `a` per block: as many as stay in L2 while every panel passes
/// them (measured: without blocks, a batch of 8 on 9×9 ran no faster
/// than the `gemm` crate, whose own blocking keeps its rows near).
fn block_rows(k: usize) -> usize {
    (L2_ROWS_BYTES / (4 * k.max(1))).clamp(MR, 512) / MR * MR
}

/// Every panel, every row tile.
///
/// # Safety
/// AVX2 and FMA; `a` holds `m` rows of `k` at stride `lda`, `c` `m` rows
/// of `n` at stride `ldc`, `lines` `k` lines per panel of `n`, `bias`
/// (where given) one line per panel, `pack` (where given) room for
/// [`block_rows`]`(k) · k` values.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,fma")]
unsafe fn run(
    m: usize,
    k: usize,
    n: usize,
    a: *const f32,
    lda: usize,
    lines: *const Line,
    bias: Option<*const Line>,
    c: *mut f32,
    ldc: usize,
    pack: Option<*mut f32>,
) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
    static ZERO: Line = Line([0.0; NR]);
    let block = block_rows(k);
    let np = n.div_ceil(NR);
    let prefetch = prefetch();
    let mut i0 = 0;
    while i0 < m {
        let rows = block.min(m - i0);
        let end = i0 + rows;
        // Lines of the next panel each row tile prefetches.
        let share = k.div_ceil(rows.div_ceil(MR));
        if let Some(buf) = pack {
            // SAFETY: rows i0..end of `a` exist and `buf` holds `rows · k`.
            unsafe { pack_block(a.add(i0 * lda), lda, rows, k, buf) };
        }
        for p in 0..np {
            let cols = NR.min(n - p * NR);
            // SAFETY (this loop): panel p has k lines; rows i..i + r of a
            // (or of its packed block) and c exist (the caller's
            // contract), columns p·16..p·16 + cols of c.
            unsafe {
                let panel = lines.add(p * k) as *const f32;
                let b = match bias {
                    Some(b) => b.add(p) as *const f32,
                    None => ZERO.0.as_ptr(),
                };
                let cp = c.add(p * NR);
                // The next panel comes from memory while this one runs:
                // each tile asks for its share of the next panel's lines.
                let next = (prefetch && p + 1 < np).then(|| lines.add((p + 1) * k));
                let mut i = i0;
                macro_rules! tiles {
                    ($packed:literal, $at:expr, $ld:expr) => {{
                        while i + MR <= end {
                            if let Some(next) = next {
                                let from = (i - i0) / MR * share;
                                for l in from..(from + share).min(k) {
                                    _mm_prefetch::<_MM_HINT_T1>(next.add(l) as *const i8);
                                }
                            }
                            tile::<MR, $packed>(
                                k,
                                b,
                                $at(i),
                                $ld,
                                panel,
                                cp.add(i * ldc),
                                ldc,
                                cols,
                            );
                            i += MR;
                        }
                        let (ai, ci) = ($at(i), cp.add(i * ldc));
                        match end - i {
                            0 => {}
                            1 => tile::<1, $packed>(k, b, ai, $ld, panel, ci, ldc, cols),
                            2 => tile::<2, $packed>(k, b, ai, $ld, panel, ci, ldc, cols),
                            3 => tile::<3, $packed>(k, b, ai, $ld, panel, ci, ldc, cols),
                            4 => tile::<4, $packed>(k, b, ai, $ld, panel, ci, ldc, cols),
                            _ => tile::<5, $packed>(k, b, ai, $ld, panel, ci, ldc, cols),
                        }
                    }};
                }
                match pack {
                    // Tile t of the block starts at t·6·k in the buffer.
                    Some(buf) => tiles!(true, |i: usize| buf.add((i - i0) * k) as *const f32, 0),
                    None => tiles!(false, |i: usize| a.add(i * lda), lda),
                }
            }
        }
        i0 = end;
    }
}

/// Copies `rows` rows of `a` (stride `lda`, `k` values each) into `buf`
/// as the tiles read them: tile t (rows 6t.. up to 6t + 6, `r` of them)
/// at `6·t·k`, as `k` groups of its `r` values.
///
/// # Safety
/// As for [`run`]'s `a` and `pack`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_block(a: *const f32, lda: usize, rows: usize, k: usize, buf: *mut f32) {
    let mut i = 0;
    while i < rows {
        let r = MR.min(rows - i);
        // SAFETY: rows i..i + r of `a`, and r·k values of `buf` from i·k.
        unsafe {
            let dst = buf.add(i * k);
            for q in 0..r {
                let src = a.add((i + q) * lda);
                for kk in 0..k {
                    *dst.add(kk * r + q) = *src.add(kk);
                }
            }
        }
        i += r;
    }
}

/// Bytes of `a` per block of rows (a part of a 512 KiB to 1 MiB L2).
const L2_ROWS_BYTES: usize = 192 * 1024;

/// `R` rows of `c`, one panel's `cols` ≤ 16 columns, starting from the
/// panel's 16 `bias` values. Element (r, kk) of `a` is at `r·lda + kk`,
/// or at `kk·R + r` when `PACKED` ([`pack_block`]).
///
/// # Safety
/// As for [`run`], for these rows and this panel; `panel` is 64-byte
/// aligned.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn tile<const R: usize, const PACKED: bool>(
    k: usize,
    bias: *const f32,
    a: *const f32,
    lda: usize,
    panel: *const f32,
    c: *mut f32,
    ldc: usize,
    cols: usize,
) {
    use std::arch::x86_64::*;
    // SAFETY: `bias` is a line of 16 values.
    let init = unsafe { [_mm256_loadu_ps(bias), _mm256_loadu_ps(bias.add(8))] };
    let mut acc = [init; R];
    for kk in 0..k {
        // SAFETY: line kk of the panel (16 aligned values) and element kk
        // of each of the R rows of a.
        unsafe {
            let w0 = _mm256_load_ps(panel.add(kk * NR));
            let w1 = _mm256_load_ps(panel.add(kk * NR + 8));
            for (r, row) in acc.iter_mut().enumerate() {
                let at = if PACKED { kk * R + r } else { r * lda + kk };
                let x = _mm256_broadcast_ss(&*a.add(at));
                row[0] = _mm256_fmadd_ps(x, w0, row[0]);
                row[1] = _mm256_fmadd_ps(x, w1, row[1]);
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        // SAFETY: row r of c has `cols` columns from c.
        unsafe {
            let dst = c.add(r * ldc);
            if cols == NR {
                _mm256_storeu_ps(dst, row[0]);
                _mm256_storeu_ps(dst.add(8), row[1]);
            } else {
                let mut tmp = [0f32; NR];
                _mm256_storeu_ps(tmp.as_mut_ptr(), row[0]);
                _mm256_storeu_ps(tmp.as_mut_ptr().add(8), row[1]);
                std::ptr::copy_nonoverlapping(tmp.as_ptr(), dst, cols);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_plain_product_on_every_remainder() {
        if !available() {
            eprintln!("skipped: the packed product needs AVX2 and FMA without AVX-512");
            return;
        }
        let mut rnd = super::super::uniform_values(11);
        // Every row remainder of the 6-row tile, partial panels, strides
        // wider than the rows, and a depth of zero.
        for &(m, n, k) in &[
            (1, 16, 1),
            (5, 8, 7),
            (6, 16, 64),
            (7, 40, 33),
            (13, 100, 17),
            (81, 384, 192),
            // Several blocks of rows (126 rows each at this depth), with
            // one panel (rows read in place) and with three (rows packed).
            (300, 24, 384),
            (300, 48, 384),
            (4, 3, 0),
        ] {
            let (lda, ldc) = (k + 3, n + 5);
            let a: Vec<f32> = (0..m * lda).map(|_| rnd()).collect();
            let w: Vec<f32> = (0..k * n).map(|_| rnd()).collect();
            let bias: Vec<f32> = (0..n).map(|_| rnd()).collect();
            let packed = Panels::new(&w, k, n, Some(&bias));
            let mut c = vec![9.0; m * ldc];
            packed.product(m, &a, lda, &mut c, ldc, false);
            let mut cb = vec![9.0; m * ldc];
            packed.product(m, &a, lda, &mut cb, ldc, true);
            for r in 0..m {
                for j in 0..ldc {
                    let got = c[r * ldc + j];
                    if j >= n {
                        assert_eq!(got, 9.0, "{m}x{n}x{k}: wrote past the row at ({r},{j})");
                        assert_eq!(cb[r * ldc + j], 9.0);
                        continue;
                    }
                    let with_bias = cb[r * ldc + j] - bias[j];
                    assert!(
                        (with_bias - got).abs() <= 1e-5 * (1.0 + got.abs()),
                        "{m}x{n}x{k} at ({r},{j}): bias {with_bias} vs {got}"
                    );
                    let want: f64 = (0..k)
                        .map(|i| a[r * lda + i] as f64 * w[i * n + j] as f64)
                        .sum();
                    assert!(
                        (got as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{m}x{n}x{k} at ({r},{j}): {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod repack {
    use super::*;

    #[test]
    fn a_strided_operand_packs_like_its_copy() {
        if !available() {
            eprintln!("skipped: the packed product needs AVX2 and FMA without AVX-512");
            return;
        }
        let mut rnd = super::super::uniform_values(12);
        let (m, k, n) = (81, 32, 81);
        // `src` holds the transpose of w (n rows of k at stride 40), as
        // attention's keys are held.
        let src: Vec<f32> = (0..n * 40).map(|_| rnd()).collect();
        let w: Vec<f32> = (0..k * n).map(|i| src[(i % n) * 40 + i / n]).collect();
        let a: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
        let want = Panels::new(&w, k, n, None);
        // Reused after a larger shape, as the attention scratch is.
        let mut got = Panels::new(&a, m, k, Some(&a[..k]));
        got.pack(&src, 1, 40, k, n);
        let (mut c1, mut c2) = (vec![0.0; m * n], vec![1.0; m * n]);
        want.product(m, &a, k, &mut c1, n, false);
        got.product(m, &a, k, &mut c2, n, true);
        assert_eq!(c1, c2);
    }
}

#[cfg(test)]
mod timing {
    use super::*;
    use crate::net::fast::gemm::{matmul, View};

    /// GFLOP/s of the packed product and the `gemm` crate on the shapes of
    /// KataGo's b10 net (`cargo test --release --lib panel_speed --
    /// --ignored --nocapture`, on an AVX2 machine).
    #[test]
    #[ignore]
    fn panel_speed() {
        if !available() {
            return;
        }
        for &(m, n, k) in &[
            (81usize, 192usize, 384usize),
            (81, 576, 192),
            (81, 1024, 192),
            (81, 192, 512),
            (361, 576, 192),
            (361, 1024, 192),
            (361, 192, 512),
            (648, 1024, 192),
            (2888, 576, 192),
        ] {
            let a = vec![0.5f32; m * k];
            let w = vec![0.25f32; k * n];
            let mut c = vec![0f32; m * n];
            let p = Panels::new(&w, k, n, None);
            let reps = (4e9 / (2 * m * n * k) as f64) as usize;
            let mut line = format!("{m}x{n}x{k}:");
            for packed in [true, false] {
                let t = std::time::Instant::now();
                for _ in 0..reps {
                    if packed {
                        p.product(m, &a, k, &mut c, n, false);
                    } else {
                        matmul(
                            m,
                            n,
                            k,
                            View::rows(&a, k),
                            View::rows(&w, n),
                            &mut c,
                            n,
                            false,
                        );
                    }
                }
                let gf = (2 * m * n * k * reps) as f64 / t.elapsed().as_secs_f64() / 1e9;
                line += &format!(" {} {gf:.1}", if packed { "panel" } else { "gemm" });
            }
            println!("{line} GFLOP/s");
        }
    }

    /// GFLOP/s with the same weights on every call (in cache) and with
    /// 40 different matrices in turn (from memory, as in a net):
    /// `cargo test --release --lib panel_cold -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn panel_cold() {
        if !available() {
            return;
        }
        for &(m, n, k) in &[
            (81usize, 1152usize, 384usize),
            (81, 384, 384),
            (648, 1152, 384),
        ] {
            let a = vec![0.5f32; m * k];
            let w = vec![0.25f32; k * n];
            let mut c = vec![0f32; m * n];
            let ps: Vec<Panels> = (0..40).map(|_| Panels::new(&w, k, n, None)).collect();
            let reps = (8e9 / (2 * m * n * k) as f64) as usize;
            let mut line = format!("{m}x{n}x{k}:");
            for cold in [false, true, false, true] {
                let t = std::time::Instant::now();
                for r in 0..reps {
                    let p = if cold { &ps[r % 40] } else { &ps[0] };
                    p.product(m, &a, k, &mut c, n, false);
                }
                let gf = (2 * m * n * k * reps) as f64 / t.elapsed().as_secs_f64() / 1e9;
                line += &format!(" {} {gf:.1}", if cold { "cold" } else { "hot" });
            }
            println!("{line} GFLOP/s");
        }
    }
}
