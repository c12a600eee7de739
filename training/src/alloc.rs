//! The allocator settings of the training binary.
//!
//! Every burn op allocates its output, and a training step's activations
//! and gradients are megabytes each (batch 128 × 64 channels × 361 points
//! is 11.8 MB). glibc serves blocks that large with fresh `mmap`s, or
//! returns the top of the heap to the system after each free, so the next
//! step takes page faults, zeroes pages and locks the kernel's memory
//! accounting again: about 9% of a 19×19 step in `perf`. Keeping freed
//! memory in the heap made the step 5–18% faster (`tengen-train
//! bench-train --convs fast`, alternating runs). The heap then stays at
//! the step's peak size for the life of the process.

/// Tells glibc to serve blocks up to its limit (32 MiB) from the heap and
/// never to trim it. Leaves everything as it is when the environment sets
/// any `MALLOC_*_` tunable itself (glibc read those at start), and on
/// other C libraries.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let user_set = std::env::vars_os().any(|(k, _)| {
            let k = k.to_string_lossy();
            k.starts_with("MALLOC_") || k.starts_with("GLIBC_TUNABLES")
        });
        if user_set {
            return;
        }
        // SAFETY: `mallopt` only changes the allocator's parameters; it
        // is called before the process starts any other thread.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
            libc::mallopt(libc::M_TOP_PAD, 256 << 20);
        }
    }
}
