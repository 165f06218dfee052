//! Bar charts as inline SVG: a few rectangles and labels need no
//! plotting library, and the page stays one file with nothing to load.

use std::fmt::Write as _;

use super::escape;

/// One bar: its label under the axis, its height, the tooltip shown on
/// hover, and `data-*` attributes that name what it counts.
#[derive(Debug)]
pub struct Bar {
    pub label: String,
    pub value: u64,
    pub tooltip: String,
    pub data: Vec<(&'static str, String)>,
}

const HEIGHT: f64 = 260.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 52.0;
const SLOT: f64 = 64.0;

/// An SVG bar chart of `bars` with a y axis from 0 to a round number,
/// the axis titles `x_title` and `y_title`, and each bar's value written
/// above it.
pub fn bar_chart(label: &str, x_title: &str, y_title: &str, bars: &[Bar]) -> String {
    let width = LEFT + RIGHT + SLOT * bars.len().max(3) as f64;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let top_value = bars.iter().map(|b| b.value).max().unwrap_or(0);
    let step = tick_step(top_value);
    let axis_max = top_value.div_ceil(step).saturating_mul(step).max(step);
    let y = |value: u64| TOP + plot_height * (1.0 - value as f64 / axis_max as f64);
    let mut svg = String::new();
    // `write!` to a String cannot fail.
    let _ = write!(
        svg,
        r#"<svg class="chart" role="img" aria-label="{}" viewBox="0 0 {width} {HEIGHT}" width="{width}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">"#,
        escape(label)
    );
    let mut tick = 0;
    while tick <= axis_max {
        let ty = y(tick);
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{LEFT}" x2="{}" y1="{ty:.1}" y2="{ty:.1}"/><text class="tick" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            width - RIGHT,
            LEFT - 6.0,
            ty + 4.0,
            thousands(tick)
        );
        match tick.checked_add(step) {
            Some(next) => tick = next,
            None => break,
        }
    }
    for (index, bar) in bars.iter().enumerate() {
        let x = LEFT + SLOT * index as f64 + SLOT * 0.15;
        let bar_width = SLOT * 0.7;
        let top = y(bar.value);
        // A bar of 1 among millions still shows as a sliver.
        let height = if bar.value > 0 {
            (TOP + plot_height - top).max(2.0)
        } else {
            0.0
        };
        let data: String = bar
            .data
            .iter()
            .map(|(name, value)| format!(r#" data-{name}="{}""#, escape(value)))
            .collect();
        let centre = x + bar_width / 2.0;
        let _ = write!(
            svg,
            r#"<g class="bar"{data}><title>{}</title><rect x="{x:.1}" y="{:.1}" width="{bar_width:.1}" height="{height:.1}"/><text class="value" x="{centre:.1}" y="{:.1}" text-anchor="middle">{}</text><text class="label" x="{centre:.1}" y="{:.1}" text-anchor="middle">{}</text></g>"#,
            escape(&bar.tooltip),
            TOP + plot_height - height,
            TOP + plot_height - height - 5.0,
            thousands(bar.value),
            TOP + plot_height + 18.0,
            escape(&bar.label)
        );
    }
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{LEFT}" x2="{}" y1="{:.1}" y2="{:.1}"/><text class="axis-title" x="{:.1}" y="{}" text-anchor="middle">{}</text><text class="axis-title" transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle">{}</text></svg>"#,
        width - RIGHT,
        TOP + plot_height,
        TOP + plot_height,
        LEFT + (width - LEFT - RIGHT) / 2.0,
        HEIGHT - 10.0,
        escape(x_title),
        TOP + plot_height / 2.0,
        escape(y_title)
    );
    svg
}

/// A round step (1, 2 or 5 times a power of ten) that divides 0..=max
/// into at most five ticks.
fn tick_step(max: u64) -> u64 {
    let mut power = 1u64;
    loop {
        for factor in [1, 2, 5] {
            let step = power.saturating_mul(factor);
            if max.div_ceil(step) <= 5 {
                return step;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// `n` with thin spaces between thousands (1 234 567).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_few() {
        assert_eq!(tick_step(0), 1);
        assert_eq!(tick_step(5), 1);
        assert_eq!(tick_step(7), 2);
        assert_eq!(tick_step(1234), 500);
        assert!(u64::MAX.div_ceil(tick_step(u64::MAX)) <= 5);
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1234567), "1\u{2009}234\u{2009}567");
    }
}
