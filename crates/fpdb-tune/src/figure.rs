//! The picture of a tuning run or of the quality report: recall against
//! false matches per query, one line per setting through its radii, each
//! point labelled with its radius. Drawn as SVG with plotters (its text is
//! SVG text, so no font is needed to draw it).

use plotters::prelude::*;

/// One setting's points, in the order the line joins them.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The setting's name in the legend.
    pub name: String,
    /// Its measured points.
    pub points: Vec<CurvePoint>,
}

/// One measured radius of a setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// The radius, written beside the point.
    pub radius: u32,
    /// The share of planted copies found.
    pub recall: f64,
    /// False matches per query.
    pub false_per_query: f64,
}

/// Why a figure could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum FigureError {
    /// Nothing to draw.
    #[error("the figure has no point to draw")]
    Empty,
    /// plotters refused a drawing step.
    #[error("drawing the figure failed: {0}")]
    Draw(String),
}

/// The Okabe–Ito colours, told apart with any colour vision.
const COLOURS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

const WIDTH: u32 = 760;
const HEIGHT: u32 = 480;

/// The SVG of `curves` under `title`. False matches per query run on a
/// log scale; a point with none measured sits on the axis's floor, a
/// third of the smallest rate measured (the x label says so).
pub fn recall_against_false_matches(title: &str, curves: &[Curve]) -> Result<String, FigureError> {
    let points = || curves.iter().flat_map(|c| c.points.iter());
    if points().next().is_none() {
        return Err(FigureError::Empty);
    }
    let smallest = points()
        .map(|p| p.false_per_query)
        .filter(|&x| x > 0.0)
        .fold(f64::INFINITY, f64::min);
    let floor = if smallest.is_finite() {
        smallest / 3.0
    } else {
        1e-4
    };
    let ceiling = points()
        .map(|p| p.false_per_query)
        .fold(floor * 10.0, f64::max)
        * 3.0;
    let lowest_recall = points().map(|p| p.recall).fold(1.0, f64::min);
    let bottom = ((lowest_recall - 0.05) * 20.0).floor().max(0.0) / 20.0;
    let at = |p: &CurvePoint| (p.false_per_query.max(floor), p.recall);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d((floor * 0.8..ceiling).log_scale(), bottom..1.0)
            .map_err(draw)?;
        chart
            .configure_mesh()
            .x_desc("false matches per query (log; none measured: on the left edge)")
            .y_desc("recall of planted copies")
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .draw()
            .map_err(draw)?;
        for (i, curve) in curves.iter().enumerate() {
            let colour = COLOURS.get(i % COLOURS.len()).copied().unwrap_or(BLACK);
            chart
                .draw_series(LineSeries::new(
                    curve.points.iter().map(at),
                    colour.stroke_width(2),
                ))
                .map_err(draw)?
                .label(curve.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(
                    curve
                        .points
                        .iter()
                        .map(|p| Circle::new(at(p), 3, colour.filled())),
                )
                .map_err(draw)?;
            chart
                .draw_series(curve.points.iter().map(|p| {
                    EmptyElement::at(at(p))
                        + Text::new(
                            p.radius.to_string(),
                            (5, -14),
                            ("sans-serif", 11).into_font().color(&colour),
                        )
                }))
                .map_err(draw)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(draw)?;
        root.present().map_err(draw)?;
    }
    Ok(svg)
}

fn draw(error: impl std::fmt::Display) -> FigureError {
    FigureError::Draw(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(name: &str, points: &[(u32, f64, f64)]) -> Curve {
        Curve {
            name: name.to_string(),
            points: points
                .iter()
                .map(|&(radius, recall, false_per_query)| CurvePoint {
                    radius,
                    recall,
                    false_per_query,
                })
                .collect(),
        }
    }

    #[test]
    fn draws_every_curve_with_its_name_and_radii() {
        let svg = recall_against_false_matches(
            "Recall against false matches",
            &[
                curve("distance", &[(3, 0.6, 0.0), (7, 0.9, 0.02)]),
                curve("confirmed", &[(3, 0.6, 0.0), (12, 0.97, 0.001)]),
            ],
        )
        .unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        for text in [
            "Recall against false matches",
            "distance",
            "confirmed",
            ">\n12\n<",
            ">\n7\n<",
        ] {
            assert!(svg.contains(text), "{text} missing");
        }
        // One line per curve, one circle per point.
        let thick = svg
            .lines()
            .filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\""))
            .count();
        assert_eq!(thick, 2 + 2, "two lines and two legend marks");
        assert_eq!(svg.matches("<circle").count(), 4);
    }

    #[test]
    fn nothing_to_draw_is_an_error() {
        assert!(matches!(
            recall_against_false_matches("t", &[curve("empty", &[])]),
            Err(FigureError::Empty)
        ));
    }
}
