//! Denormal floats flushed to zero while the fast path computes.
//!
//! Softmax and the exponentials of SwiGLU and the value head produce
//! numbers below 2⁻¹²⁶ (e.g. attention weights of far-off points), and on
//! many x86 cores every arithmetic operation that meets such a number
//! takes a microcode assist, tens to hundreds of times slower than a
//! normal one. A product of an attention matrix full of them ran KataGo's
//! b10 net at 0.6 evaluations per second where the same code did 8.7 on
//! a core that handles them in hardware. Inference loses nothing by
//! treating them as zero (they are below 10⁻³⁸), so the fast path sets
//! the SSE control register's flush-to-zero and denormals-are-zero bits
//! for the duration of a forward pass, on the calling thread, and puts
//! the caller's bits back afterwards.

/// Flush-to-zero (bit 15) and denormals-are-zero (bit 6) of MXCSR.
#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = 0x8040;

/// While alive, this thread's float arithmetic flushes denormals to zero;
/// dropping it restores the previous mode.
pub struct FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl FlushDenormals {
    /// Switches this thread to flushing denormals.
    #[cfg(target_arch = "x86_64")]
    pub fn new() -> FlushDenormals {
        let saved = read_csr();
        // Already on in the binaries (set for every thread at start): no
        // write on each forward pass then.
        if saved & FTZ_DAZ != FTZ_DAZ {
            write_csr(saved | FTZ_DAZ);
        }
        FlushDenormals { saved }
    }

    /// No control register to set on this architecture.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn new() -> FlushDenormals {
        FlushDenormals {}
    }
}

impl Default for FlushDenormals {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if self.saved & FTZ_DAZ != FTZ_DAZ {
            write_csr(self.saved);
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn read_csr() -> u32 {
    let mut csr: u32 = 0;
    // SAFETY: `stmxcsr` stores the 32-bit control register into `csr`,
    // a valid, writable u32; SSE is part of the x86_64 baseline.
    unsafe {
        core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
    }
    csr
}

#[cfg(target_arch = "x86_64")]
fn write_csr(csr: u32) {
    // SAFETY: `ldmxcsr` loads a control word read from this register
    // (with only the FTZ and DAZ bits added), so no reserved bit is set.
    unsafe {
        core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, readonly, preserves_flags));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest normal f32 halved: a denormal, unless flushed.
    fn halved(x: f32) -> f32 {
        std::hint::black_box(x) / std::hint::black_box(2.0)
    }

    #[test]
    fn denormals_flush_only_while_the_guard_lives() {
        let tiny = f32::MIN_POSITIVE;
        assert!(halved(tiny) > 0.0, "denormals exist by default");
        {
            let _g = FlushDenormals::new();
            #[cfg(target_arch = "x86_64")]
            assert_eq!(halved(tiny), 0.0, "flushed under the guard");
        }
        assert!(halved(tiny) > 0.0, "the mode is restored");
    }

    /// A process that sets the mode first thing gives it to the threads it
    /// starts afterwards (rayon's pools among them): Linux copies the
    /// control register into a new thread.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn threads_started_under_the_guard_inherit_it() {
        let tiny = f32::MIN_POSITIVE;
        let g = FlushDenormals::new();
        let inside = std::thread::spawn(move || halved(tiny)).join().unwrap();
        drop(g);
        assert_eq!(inside, 0.0);
    }
}
