//! Command-line flags. Hand-written: a dozen flags do not justify a parser crate, and
//! every error can name the flag and the value that was wrong.

use kanju_tsume::{FutileRule, SpareRule};
use std::time::Duration;

/// Settings of `kanju solve`.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveArgs {
    /// Positional words: one file name, or the words of an SFEN.
    pub target: Vec<String>,
    /// Time per problem; `None` = unlimited.
    pub time: Option<Duration>,
    /// Nodes per problem.
    pub nodes: Option<u64>,
    /// Solver threads per problem.
    pub threads: usize,
    /// Table size per job, MiB.
    pub hash_mb: usize,
    /// JSON output for a single problem (files always give JSON Lines).
    pub json: bool,
    /// The side to move defends.
    pub defender_root: bool,
    /// Problems solved at once.
    pub jobs: usize,
    /// No progress bar or summary.
    pub quiet: bool,
    /// The main line's 駒余り convention.
    pub spare_rule: SpareRule,
    /// The main line's 無駄合 rule.
    pub futile_rule: FutileRule,
    /// Stop at the first verified mate, without the composer's main line.
    pub proof_only: bool,
    /// The search's seed ([`kanju_tsume::Config::seed`]).
    pub seed: u64,
}

impl Default for SolveArgs {
    fn default() -> SolveArgs {
        SolveArgs {
            target: Vec::new(),
            time: Some(Duration::from_secs(10)),
            nodes: None,
            threads: 1,
            hash_mb: 256,
            json: false,
            defender_root: false,
            jobs: 1,
            quiet: false,
            spare_rule: SpareRule::Strict,
            futile_rule: FutileRule::SameLength,
            proof_only: false,
            seed: 0,
        }
    }
}

/// Parses a duration: `10s`, `500ms`, `1.5s`, `2m`, `1h`, a bare number of seconds,
/// or `0`/`none`/`inf` for no limit.
pub fn parse_duration(s: &str) -> Result<Option<Duration>, String> {
    let t = s.trim().to_ascii_lowercase();
    if matches!(t.as_str(), "0" | "none" | "inf" | "infinite" | "unlimited") {
        return Ok(None);
    }
    let (num, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t.as_str(), "s"),
    };
    let scale = match unit {
        "ms" => 0.001,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "'{s}': unknown time unit '{unit}' (use ms, s, m or h)"
            ))
        }
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < 1e9 => {
            Ok(Some(Duration::from_secs_f64(v * scale)))
        }
        _ => Err(format!("'{s}' is not a time such as 10s, 500ms or 2m")),
    }
}

fn value<'a>(flag: &str, it: &mut impl Iterator<Item = &'a String>) -> Result<&'a String, String> {
    it.next().ok_or_else(|| format!("{flag} needs a value"))
}

fn whole<T: std::str::FromStr>(flag: &str, v: &str, min: u64, max: u64) -> Result<T, String> {
    match v.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => v
            .parse::<T>()
            .map_err(|_| format!("{flag}: bad value '{v}'")),
        _ => Err(format!(
            "{flag}: '{v}' is not a whole number in {min}..={max}"
        )),
    }
}

/// Parses the words after `solve`. `Ok(None)` means `--help` was asked for.
pub fn parse_solve(args: &[String]) -> Result<Option<SolveArgs>, String> {
    let mut a = SolveArgs::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let take = |it: &mut std::slice::Iter<'_, String>| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => value(flag, it).cloned(),
            }
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--time" | "-t" => {
                a.time = parse_duration(&take(&mut it)?).map_err(|e| format!("--time: {e}"))?
            }
            "--nodes" | "-n" => a.nodes = Some(whole("--nodes", &take(&mut it)?, 1, u64::MAX)?),
            "--threads" => {
                a.threads = whole("--threads", &take(&mut it)?, 1, crate::options::MAX_THREADS)?
            }
            "--hash" => {
                let v = take(&mut it)?;
                let mb: u64 = whole("--hash", &v, 1, crate::options::MAX_HASH_MB)?;
                if let Some(total) = crate::sysmem::total_mib() {
                    if mb * a.jobs.max(1) as u64 > total * 3 / 4 {
                        return Err(format!(
                            "--hash: {mb} MiB per job does not fit in {total} MiB of memory"
                        ));
                    }
                }
                a.hash_mb = mb as usize;
            }
            "--jobs" | "-j" => a.jobs = whole("--jobs", &take(&mut it)?, 1, 256)?,
            "--seed" => a.seed = whole("--seed", &take(&mut it)?, 0, u64::MAX)?,
            "--json" => a.json = true,
            "--defender-root" => a.defender_root = true,
            "--proof-only" => a.proof_only = true,
            "--quiet" | "-q" => a.quiet = true,
            "--spare-rule" => {
                let v = take(&mut it)?;
                a.spare_rule = crate::options::parse_spare_rule(&v).ok_or_else(|| {
                    format!("--spare-rule: '{v}' is not strict, twoply or classical")
                })?
            }
            "--futile-rule" => {
                let v = take(&mut it)?;
                a.futile_rule = crate::options::parse_futile_rule(&v).ok_or_else(|| {
                    format!("--futile-rule: '{v}' is not same-length or any-length")
                })?
            }
            f if f.starts_with('-') && f.len() > 1 && !looks_like_sfen_word(f) => {
                return Err(format!("unknown flag '{f}' (see kanju solve --help)"))
            }
            _ => a.target.push(arg.clone()),
        }
    }
    if a.target.is_empty() {
        return Err("solve needs an SFEN or a file (see kanju solve --help)".into());
    }
    Ok(Some(a))
}

/// `-` alone reads standard input; it is not a flag. (An SFEN hand field is `-` too.)
fn looks_like_sfen_word(w: &str) -> bool {
    w == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Some(Duration::from_secs(10))));
        assert_eq!(
            parse_duration("500ms"),
            Ok(Some(Duration::from_millis(500)))
        );
        assert_eq!(parse_duration("2m"), Ok(Some(Duration::from_secs(120))));
        assert_eq!(parse_duration("3"), Ok(Some(Duration::from_secs(3))));
        assert_eq!(
            parse_duration("1.5s"),
            Ok(Some(Duration::from_millis(1500)))
        );
        assert_eq!(parse_duration("none"), Ok(None));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("s").is_err());
    }

    #[test]
    fn solve_flags() {
        let a = parse_solve(&v(
            "4k4/9/4P4/9/9/9/9/9/9 b G 1 --time 2s --nodes 1000 --json --jobs=3",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(a.target, v("4k4/9/4P4/9/9/9/9/9/9 b G 1"));
        assert_eq!(
            (a.time, a.nodes, a.json, a.jobs),
            (Some(Duration::from_secs(2)), Some(1000), true, 3)
        );
        let a = parse_solve(&v("9/9/9/9/9/9/9/9/9 b - 1")).unwrap().unwrap();
        assert_eq!(a.target.len(), 4);
        assert!(parse_solve(&v("x --threads 0")).is_err());
        assert!(parse_solve(&v("x --threads")).is_err());
        assert!(parse_solve(&v("x --frobnicate")).is_err());
        assert_eq!(parse_solve(&v("x --seed 7")).unwrap().unwrap().seed, 7);
        assert!(parse_solve(&v("x --seed -1")).is_err());
        assert!(parse_solve(&v("--json")).is_err());
        assert_eq!(parse_solve(&v("--help")), Ok(None));
    }
}
