//! The eight symmetries of a square board (rotations and reflections), for
//! data augmentation and for averaging net outputs.

use super::point::Point;

/// One of the 8 symmetries: an optional transpose, then optional flips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

impl Symmetry {
    /// All eight, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// Symmetry number `i` (0..8), or `None`.
    pub fn from_index(i: usize) -> Option<Symmetry> {
        (i < 8).then_some(Symmetry(i as u8))
    }

    /// Its number, 0..8.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    fn flip_x(self) -> bool {
        self.0 & 1 != 0
    }
    fn flip_y(self) -> bool {
        self.0 & 2 != 0
    }
    fn transpose(self) -> bool {
        self.0 & 4 != 0
    }

    /// Maps `(x, y)` on a board of `size`.
    #[inline]
    pub fn apply_xy(self, x: usize, y: usize, size: usize) -> (usize, usize) {
        let (mut x, mut y) = if self.transpose() { (y, x) } else { (x, y) };
        if self.flip_x() {
            x = size - 1 - x;
        }
        if self.flip_y() {
            y = size - 1 - y;
        }
        (x, y)
    }

    /// Maps a point on a board of `size`.
    #[inline]
    pub fn apply(self, p: Point, size: usize) -> Point {
        let (x, y) = self.apply_xy(p.x(), p.y(), size);
        Point::new(x, y)
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        // Flips commute with themselves; with a transpose, the flips swap axes.
        if self.transpose() {
            let fx = self.flip_y() as u8;
            let fy = self.flip_x() as u8;
            Symmetry(4 | fx | (fy << 1))
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_and_all_distinct() {
        let size = 7;
        let p = Point::new(1, 2);
        let mut images = Vec::new();
        for s in Symmetry::ALL {
            let q = s.apply(p, size);
            assert_eq!(s.inverse().apply(q, size), p);
            images.push(q);
        }
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
    }
}
