//! Runtime CPU detection and the [`multiversion!`] macro: a loop written
//! once in plain Rust, compiled three times (AVX-512, AVX2 + FMA, and the
//! portable baseline) and dispatched on what this CPU has.
//!
//! The loops in [`super::winograd`] and [`super::act`] are written so that
//! LLVM vectorises them (channels innermost, no branches in the inner
//! loop); the wider instruction sets make those vectors 8 or 16 lanes.

use std::sync::OnceLock;

/// The instruction sets the kernels use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// No x86 vector extensions beyond the baseline (or not x86).
    Portable,
    /// AVX2 and FMA.
    Avx2,
    /// AVX-512 F, BW, DQ and VL (with AVX2 and FMA).
    Avx512,
}

fn detect() -> Level {
    let found = detect_cpu();
    let cap = match std::env::var("TENGEN_SIMD").as_deref() {
        Ok("portable") => Level::Portable,
        Ok("avx2") => Level::Avx2,
        _ => Level::Avx512,
    };
    found.min(cap)
}

fn detect_cpu() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("fma")
        {
            return Level::Avx512;
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return Level::Avx2;
        }
    }
    Level::Portable
}

/// What this CPU supports (detected once). `TENGEN_SIMD=avx2` or
/// `TENGEN_SIMD=portable` in the environment caps it, for comparisons and
/// for testing every version on one machine.
pub fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(detect)
}

/// Defines `fn name(args)` whose body is compiled for AVX-512, for AVX2 +
/// FMA and for the baseline, and runs the best one [`level`] allows. In
/// the body, the constant `FMA` is true where fused multiply-adds are
/// single instructions (see [`super::act::exp_with`]).
macro_rules! multiversion {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name($($arg: $ty),*) {
            // `FMA` tells the body whether fused multiply-adds are
            // instructions here (`f32::mul_add` is a library call where
            // they are not).
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn body<const FMA: bool>($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                use $crate::net::fast::simd::{level, Level};
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                #[allow(clippy::too_many_arguments)]
                fn v4($($arg: $ty),*) { body::<true>($($arg),*) }
                #[target_feature(enable = "avx2,fma")]
                #[allow(clippy::too_many_arguments)]
                fn v3($($arg: $ty),*) { body::<true>($($arg),*) }
                match level() {
                    // SAFETY: `level` found these instruction sets on this
                    // CPU at run time.
                    Level::Avx512 => return unsafe { v4($($arg),*) },
                    // SAFETY: as above, AVX2 and FMA are present.
                    Level::Avx2 => return unsafe { v3($($arg),*) },
                    Level::Portable => {}
                }
            }
            body::<false>($($arg),*)
        }
    };
}

pub(crate) use multiversion;
