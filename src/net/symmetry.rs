//! Running the net under one of the 8 board symmetries, numbered as
//! KataGo numbers them, so that `kata-raw-nn N` means the same in both
//! engines.
//!
//! KataGo's symmetry `k` (`SymmetryHelpers::getSymLoc` in
//! `cpp/neuralnet/nninputs.cpp`) maps `(x, y)` by flipping `x` if bit 1 is
//! set, flipping `y` if bit 0 is set, and then transposing if bit 2 is
//! set. The input feature at point `p` goes to the net at `getSymLoc(p)`,
//! and the output there belongs to `p`. Our [`Symmetry`] transposes first
//! and then flips `x` (bit 0) and `y` (bit 1), so without a transpose the
//! two flip bits trade places and with one the numbers agree.

use crate::rules::{Point, Symmetry};

/// Our symmetry for KataGo's symmetry number `k` (0..8).
pub fn from_katago(k: usize) -> Option<Symmetry> {
    let ours = if k & 4 != 0 {
        k
    } else {
        ((k & 1) << 1) | ((k >> 1) & 1)
    };
    Symmetry::from_index(ours).filter(|_| k < 8)
}

/// KataGo's number for our symmetry `s`.
pub fn to_katago(s: Symmetry) -> usize {
    let i = s.index();
    if i & 4 != 0 {
        i
    } else {
        ((i & 1) << 1) | ((i >> 1) & 1)
    }
}

/// `map[i]`: the dense index that dense index `i` goes to under `s`.
pub fn dense_map(s: Symmetry, size: usize) -> Vec<usize> {
    (0..size * size)
        .map(|i| s.apply(Point::from_dense(i, size), size).dense(size))
        .collect()
}

/// Moves every plane of `src` (`planes` × `size*size`) to the net's
/// orientation: `dst[plane][map[i]] = src[plane][i]`.
pub fn to_net(src: &[f32], dst: &mut [f32], map: &[usize]) {
    let n = map.len();
    for (s, d) in src.chunks_exact(n).zip(dst.chunks_exact_mut(n)) {
        for (i, &j) in map.iter().enumerate() {
            d[j] = s[i];
        }
    }
}

/// Brings every plane of `data` (net orientation) back to the board's, in
/// place: `data[plane][i] = old[plane][map[i]]`.
pub fn from_net(data: &mut [f32], map: &[usize]) {
    let n = map.len();
    let mut tmp = vec![0f32; n];
    for plane in data.chunks_exact_mut(n) {
        for (i, &j) in map.iter().enumerate() {
            tmp[i] = plane[j];
        }
        plane.copy_from_slice(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// KataGo's getSymLoc, transcribed as a specification.
    fn katago_sym_loc(x: usize, y: usize, size: usize, k: usize) -> (usize, usize) {
        let (mut x, mut y) = (x, y);
        if k & 2 != 0 {
            x = size - 1 - x;
        }
        if k & 1 != 0 {
            y = size - 1 - y;
        }
        if k & 4 != 0 {
            (y, x)
        } else {
            (x, y)
        }
    }

    #[test]
    fn numbering_matches_katago() {
        let size = 7;
        for k in 0..8 {
            let s = from_katago(k).unwrap();
            assert_eq!(to_katago(s), k);
            for y in 0..size {
                for x in 0..size {
                    let p = s.apply(Point::new(x, y), size);
                    assert_eq!((p.x(), p.y()), katago_sym_loc(x, y, size, k), "k={k}");
                }
            }
        }
        assert!(from_katago(8).is_none());
        // KataGo: invert(5) = 6.
        assert_eq!(to_katago(from_katago(5).unwrap().inverse()), 6);
    }

    #[test]
    fn to_net_and_back_is_identity() {
        let size = 5;
        let src: Vec<f32> = (0..2 * 25).map(|i| i as f32).collect();
        for s in Symmetry::ALL {
            let map = dense_map(s, size);
            let mut net = vec![0f32; src.len()];
            to_net(&src, &mut net, &map);
            from_net(&mut net, &map);
            assert_eq!(net, src);
        }
    }
}
