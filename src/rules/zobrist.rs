//! Zobrist keys, generated at compile time from a fixed seed so hashes are
//! the same in every build and on every machine.

use super::color::Color;
use super::point::{Point, CELLS};

/// A 64-bit mix of two words: the SplitMix64 finaliser of
/// `a + (b + 1)·φ`. `mix(x, 0)` is SplitMix64's output for state `x`.
pub const fn mix(a: u64, b: u64) -> u64 {
    let mut z = a
        .wrapping_add(b.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One SplitMix64 step: the next state and the output.
const fn splitmix(state: u64) -> (u64, u64) {
    (state.wrapping_add(0x9E37_79B9_7F4A_7C15), mix(state, 0))
}

const fn make_keys() -> [[u64; CELLS]; 2] {
    let mut keys = [[0u64; CELLS]; 2];
    let mut state = 0x7465_6E67_656E_u64; // "tengen"
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CELLS {
            let (s, k) = splitmix(state);
            state = s;
            keys[c][i] = k;
            i += 1;
        }
        c += 1;
    }
    keys
}

static STONE_KEYS: [[u64; CELLS]; 2] = make_keys();

/// Key mixed in when White is to move.
pub const WHITE_TO_MOVE: u64 = 0x5bd1_e995_7e6d_2c4b;

/// Key of a stone of colour `c` at `p`.
#[inline]
pub fn stone(c: Color, p: Point) -> u64 {
    STONE_KEYS[c.index()][p.index()]
}

/// Key for the side to move.
#[inline]
pub fn side(c: Color) -> u64 {
    match c {
        Color::Black => 0,
        Color::White => WHITE_TO_MOVE,
    }
}
