//! The loop's metrics: one CSV row per generation, and a PNG plot of the
//! losses (top) and Elo with its interval (bottom) over generations.
//! The plot has no text (no system fonts needed): the CSV holds the
//! numbers; colours are documented here: total loss black, policy blue,
//! value red, validation total grey; Elo green with pale interval lines.

use std::path::Path;

use plotters::prelude::*;

/// One generation's numbers.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Row {
    pub generation: u32,
    pub games: usize,
    pub samples: usize,
    pub loss: f32,
    pub policy: f32,
    pub value: f32,
    pub val_loss: f32,
    /// Cumulative Elo of the best net (sum of promoted gains).
    pub elo: f64,
    pub elo_lo: f64,
    pub elo_hi: f64,
    pub promoted: bool,
}

pub const HEADER: &str =
    "generation,games,samples,loss,policy,value,val_loss,elo,elo_lo,elo_hi,promoted";

/// Appends `row` to the CSV at `path` (with a header when new).
pub fn append(path: &Path, row: &Row) -> Result<(), String> {
    let line = format!(
        "{},{},{},{},{},{},{},{:.1},{:.1},{:.1},{}",
        row.generation,
        row.games,
        row.samples,
        row.loss,
        row.policy,
        row.value,
        row.val_loss,
        row.elo,
        row.elo_lo,
        row.elo_hi,
        row.promoted as u8
    );
    crate::util::append_csv_row(path, HEADER, &line)
}

/// Reads the rows back.
pub fn read(path: &Path) -> Vec<Row> {
    crate::util::read_csv_rows(path, 11, |f| {
        Some(Row {
            generation: f[0].parse().ok()?,
            games: f[1].parse().ok()?,
            samples: f[2].parse().ok()?,
            loss: f[3].parse().ok()?,
            policy: f[4].parse().ok()?,
            value: f[5].parse().ok()?,
            val_loss: f[6].parse().ok()?,
            elo: f[7].parse().ok()?,
            elo_lo: f[8].parse().ok()?,
            elo_hi: f[9].parse().ok()?,
            promoted: f[10] == "1",
        })
    })
}

/// Draws the plot of `rows` to `png`.
pub fn plot(rows: &[Row], png: &Path) -> Result<(), String> {
    if rows.is_empty() {
        return Ok(());
    }
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", png.display());
    let root = BitMapBackend::new(png, (800, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(300);
    let x_max = rows.iter().map(|r| r.generation).max().unwrap_or(1).max(1) as f64;
    let finite = |v: f32| if v.is_finite() { v as f64 } else { 0.0 };
    let y_max = rows
        .iter()
        .flat_map(|r| [r.loss, r.policy, r.value, r.val_loss])
        .map(finite)
        .fold(0.1, f64::max)
        * 1.05;
    let mut c = ChartBuilder::on(&top)
        .margin(10)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(|e| err(&e))?;
    let series = |f: &dyn Fn(&Row) -> f32| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.generation as f64, finite(f(r))))
            .collect()
    };
    for (data, color) in [
        (series(&|r| r.loss), BLACK),
        (series(&|r| r.policy), BLUE),
        (series(&|r| r.value), RED),
        (series(&|r| r.val_loss), RGBColor(150, 150, 150)),
    ] {
        c.draw_series(LineSeries::new(data, color.stroke_width(2)))
            .map_err(|e| err(&e))?;
    }
    let lo = rows.iter().map(|r| r.elo_lo).fold(0.0, f64::min) - 10.0;
    let hi = rows.iter().map(|r| r.elo_hi).fold(0.0, f64::max) + 10.0;
    let mut c = ChartBuilder::on(&bottom)
        .margin(10)
        .build_cartesian_2d(0.0..x_max, lo..hi)
        .map_err(|e| err(&e))?;
    let pts = |f: &dyn Fn(&Row) -> f64| -> Vec<(f64, f64)> {
        rows.iter().map(|r| (r.generation as f64, f(r))).collect()
    };
    c.draw_series(LineSeries::new(pts(&|r| r.elo_lo), RGBColor(160, 220, 160)))
        .map_err(|e| err(&e))?;
    c.draw_series(LineSeries::new(pts(&|r| r.elo_hi), RGBColor(160, 220, 160)))
        .map_err(|e| err(&e))?;
    c.draw_series(LineSeries::new(pts(&|r| r.elo), GREEN.stroke_width(2)))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// The columns of a training run's `metrics.csv` (see
/// `train::run`), by header name; rows that do not parse are skipped and
/// empty cells (no validation data) are NaN.
pub fn read_training(path: &Path) -> Result<Vec<(u64, Vec<f64>)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let want = [
        "loss",
        "policy",
        "value",
        "val_loss",
        "val_policy",
        "val_value",
    ];
    let cols: Vec<usize> = want
        .iter()
        .map(|w| header.iter().position(|h| h == w))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{}: not a training metrics.csv", path.display()))?;
    Ok(lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let step = f.first()?.parse().ok()?;
            let v = cols
                .iter()
                .map(|&c| f.get(c).and_then(|x| x.parse().ok()).unwrap_or(f64::NAN))
                .collect();
            Some((step, v))
        })
        .collect())
}

/// Plots a training run's `metrics.csv` to `png` against the step: top,
/// total loss (black; validation grey) and policy loss (blue; validation
/// pale blue); bottom, value loss (red; validation pink). No text, like
/// [`plot`]: the CSV holds the numbers.
pub fn plot_training(csv: &Path, png: &Path) -> Result<(), String> {
    let rows = read_training(csv)?;
    if rows.is_empty() {
        return Err(format!("{}: no rows", csv.display()));
    }
    let err = |e: &dyn std::fmt::Display| format!("plot {}: {e}", png.display());
    let root = BitMapBackend::new(png, (800, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(360);
    let x_max = rows.iter().map(|r| r.0).max().unwrap_or(1).max(1) as f64;
    let panels: [(&DrawingArea<_, _>, &[(usize, RGBColor)]); 2] = [
        (
            &top,
            &[
                (0, BLACK),
                (3, RGBColor(150, 150, 150)),
                (1, BLUE),
                (4, RGBColor(140, 170, 255)),
            ],
        ),
        (&bottom, &[(2, RED), (5, RGBColor(255, 160, 180))]),
    ];
    for (area, lines) in panels {
        let y_max = rows
            .iter()
            .flat_map(|r| lines.iter().map(|&(c, _)| r.1[c]))
            .filter(|v| v.is_finite())
            .fold(0.1, f64::max)
            * 1.05;
        let mut c = ChartBuilder::on(area)
            .margin(10)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(|e| err(&e))?;
        for &(col, color) in lines {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.1[col].is_finite())
                .map(|r| (r.0 as f64, r.1[col]))
                .collect();
            c.draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))
}
