//! Root Dirichlet noise (self-play exploration) and the samplers it needs.
//! Deterministic given the generator's state.

use rand::Rng;

/// A standard normal sample (Box-Muller).
fn normal<R: Rng>(rng: &mut R) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A Gamma(`alpha`, 1) sample (Marsaglia and Tsang; boosted for alpha < 1).
pub(crate) fn gamma<R: Rng>(alpha: f64, rng: &mut R) -> f64 {
    if alpha <= 0.0 || !alpha.is_finite() {
        return 0.0;
    }
    if alpha < 1.0 {
        let u: f64 = 1.0 - rng.random::<f64>();
        return gamma(alpha + 1.0, rng) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u: f64 = 1.0 - rng.random::<f64>();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// Mixes Dirichlet(`alpha`, ..., `alpha`) noise into `priors`:
/// `p <- (1 - fraction) p + fraction * eta`. The result still sums to 1.
pub(crate) fn mix_dirichlet<R: Rng>(priors: &mut [f32], alpha: f64, fraction: f64, rng: &mut R) {
    if priors.is_empty() || fraction <= 0.0 {
        return;
    }
    let mut eta: Vec<f64> = priors.iter().map(|_| gamma(alpha, rng)).collect();
    let total: f64 = eta.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        let u = 1.0 / eta.len() as f64;
        eta.iter_mut().for_each(|e| *e = u);
    } else {
        eta.iter_mut().for_each(|e| *e /= total);
    }
    for (p, e) in priors.iter_mut().zip(eta) {
        *p = ((1.0 - fraction) * *p as f64 + fraction * e) as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn gamma_has_the_right_mean() {
        let mut rng = StdRng::seed_from_u64(3);
        for alpha in [0.03, 0.5, 2.0] {
            let n = 20_000;
            let mean: f64 = (0..n).map(|_| gamma(alpha, &mut rng)).sum::<f64>() / n as f64;
            assert!(
                (mean - alpha).abs() < 0.1 * alpha.max(0.3),
                "{alpha}: {mean}"
            );
        }
    }

    #[test]
    fn noise_keeps_a_distribution() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut p = vec![0.25f32; 4];
        mix_dirichlet(&mut p, 0.3, 0.25, &mut rng);
        let s: f32 = p.iter().sum();
        assert!((s - 1.0).abs() < 1e-5);
        assert!(p.iter().any(|&x| (x - 0.25).abs() > 1e-4));
    }
}
