//! The statistics every search's report ends with, in the text for people and in the
//! JSON for scripts, written once so that `solve` and `brinkmate` report them alike.

use super::json::Obj;
use crate::report::nps;
use std::time::Duration;

/// Milliseconds to a tenth, as JSON records give times.
fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

/// `nodes:`, `time:`, `decided:` (when the result was known before the search ended)
/// and `nps:` lines.
pub fn text_lines(nodes: u64, elapsed: Duration, decided: Option<Duration>) -> Vec<String> {
    let mut out = vec![
        format!("nodes:     {nodes}"),
        format!("time:      {:.3} s", elapsed.as_secs_f64()),
    ];
    if let Some(d) = decided {
        out.push(format!("decided:   {:.3} s", d.as_secs_f64()));
    }
    out.push(format!("nps:       {}", nps(nodes, elapsed)));
    out
}

/// The fields `nodes`, `time_ms`, `nps` and, when given, `decided_ms`.
pub fn put_json(o: &mut Obj, nodes: u64, elapsed: Duration, decided: Option<Duration>) {
    o.put("nodes", nodes)
        .put("time_ms", millis(elapsed))
        .put("nps", nps(nodes, elapsed));
    if let Some(d) = decided {
        o.put("decided_ms", millis(d));
    }
}
