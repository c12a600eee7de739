//! Handicap stone placement: GTP's fixed placements and checks for free
//! placement.

use super::point::Point;

/// Why a handicap request was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandicapError {
    #[error("invalid handicap: {0} stones (at least 2)")]
    TooFew(usize),
    #[error("invalid handicap: at most {max} fixed stones on {size}x{size}")]
    TooMany { size: usize, max: usize },
    #[error("fixed handicap is not defined for boards smaller than 7x7")]
    BoardTooSmall,
    #[error("invalid handicap: {0} stones do not fit on the board")]
    DoesNotFit(usize),
}

/// The largest fixed handicap on a board of `size` (0 if none is defined).
pub fn max_fixed(size: usize) -> usize {
    if size < 7 {
        0
    } else if size % 2 == 1 && size > 7 {
        9
    } else {
        4
    }
}

/// The GTP fixed handicap points for `n` stones on a board of `size`,
/// in GTP's order of placement. Stones sit on the 4-4 points on boards of
/// 13 and larger and on the 3-3 points on smaller ones; 5 to 9 stones need
/// an odd size so that the centre and side points exist.
pub fn fixed(size: usize, n: usize) -> Result<Vec<Point>, HandicapError> {
    if n < 2 {
        return Err(HandicapError::TooFew(n));
    }
    if size < 7 {
        return Err(HandicapError::BoardTooSmall);
    }
    let max = max_fixed(size);
    if n > max {
        return Err(HandicapError::TooMany { size, max });
    }
    let e = if size >= 13 { 3 } else { 2 };
    let (lo, mid, hi) = (e, size / 2, size - 1 - e);
    // Points as (x, y) with y from the top.
    let p = |x: usize, y: usize| Point::new(x, y);
    let bottom_left = p(lo, hi);
    let top_right = p(hi, lo);
    let top_left = p(lo, lo);
    let bottom_right = p(hi, hi);
    let centre = p(mid, mid);
    let left = p(lo, mid);
    let right = p(hi, mid);
    let bottom = p(mid, hi);
    let top = p(mid, lo);
    let corners = [bottom_left, top_right, top_left, bottom_right];
    let mut out: Vec<Point> = corners.iter().copied().take(n.min(4)).collect();
    match n {
        5 => out.push(centre),
        6 => out.extend([left, right]),
        7 => out.extend([left, right, centre]),
        8 => out.extend([left, right, bottom, top]),
        9 => out.extend([left, right, bottom, top, centre]),
        _ => {}
    }
    Ok(out)
}

/// Checks a free handicap request of `n` stones on a board of `size`: at
/// least 2, and at least one point left empty.
pub fn check_free(size: usize, n: usize) -> Result<(), HandicapError> {
    if n < 2 {
        return Err(HandicapError::TooFew(n));
    }
    if n >= size * size {
        return Err(HandicapError::DoesNotFit(n));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(size: usize, n: usize) -> Vec<String> {
        let mut v: Vec<String> = fixed(size, n)
            .unwrap()
            .iter()
            .map(|p| p.to_gtp(size))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn gtp_tables() {
        assert_eq!(names(19, 2), ["D4", "Q16"]);
        assert_eq!(names(19, 5), ["D16", "D4", "K10", "Q16", "Q4"]);
        assert_eq!(
            names(19, 7),
            ["D10", "D16", "D4", "K10", "Q10", "Q16", "Q4"]
        );
        assert_eq!(names(13, 3), ["D10", "D4", "K10"]);
        assert_eq!(names(9, 4), ["C3", "C7", "G3", "G7"]);
        assert!(fixed(19, 10).is_err());
        assert!(fixed(6, 2).is_err());
        assert!(fixed(10, 5).is_err());
        assert!(fixed(19, 1).is_err());
    }
}
