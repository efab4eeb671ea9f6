//! Command-line flags. Hand-written: a dozen flags do not justify a parser crate, and
//! every error can name the flag and the value that was wrong.

use kanju_tsume::{BrinkmateLimits, FutileRule, SpareRule};
use std::time::Duration;

/// The settings `kanju solve` and `kanju brinkmate` share: what to search, the limits
/// of each search, and how to report.
#[derive(Clone, Debug, PartialEq)]
pub struct CommonArgs {
    /// Positional words: one file name, or the words of an SFEN.
    pub target: Vec<String>,
    /// Time per problem; `None` = unlimited.
    pub time: Option<Duration>,
    /// Nodes per problem.
    pub nodes: Option<u64>,
    /// Table size per job, MiB.
    pub hash_mb: usize,
    /// JSON output for a single problem (files always give JSON Lines).
    pub json: bool,
    /// Problems solved at once.
    pub jobs: usize,
    /// No progress bar or summary.
    pub quiet: bool,
}

impl Default for CommonArgs {
    fn default() -> CommonArgs {
        CommonArgs {
            target: Vec::new(),
            time: Some(Duration::from_secs(10)),
            nodes: None,
            hash_mb: 256,
            json: false,
            jobs: 1,
            quiet: false,
        }
    }
}

/// Settings of `kanju solve`.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveArgs {
    /// The target, limits and output shared with `brinkmate`.
    pub common: CommonArgs,
    /// Solver threads per problem.
    pub threads: usize,
    /// The side to move defends.
    pub defender_root: bool,
    /// The main line's 駒余り convention.
    pub spare_rule: SpareRule,
    /// The main line's 無駄合 rule.
    pub futile_rule: FutileRule,
    /// Stop at the first verified mate, without the composer's main line.
    pub proof_only: bool,
    /// The search's seed ([`kanju_tsume::Config::seed`]).
    pub seed: u64,
    /// The longest mate looked for ([`kanju_tsume::Limits::max_mate_len`]).
    pub max_length: Option<u32>,
}

impl Default for SolveArgs {
    fn default() -> SolveArgs {
        SolveArgs {
            common: CommonArgs::default(),
            threads: 1,
            defender_root: false,
            spare_rule: SpareRule::Strict,
            futile_rule: FutileRule::SameLength,
            proof_only: false,
            seed: 0,
            max_length: None,
        }
    }
}

/// Settings of `kanju brinkmate`.
#[derive(Clone, Debug, PartialEq)]
pub struct BrinkmateArgs {
    /// The target, limits and output shared with `solve`.
    pub common: CommonArgs,
    /// The longest brinkmate looked for ([`BrinkmateLimits::max_plies`]): odd, at most
    /// [`BrinkmateLimits::MAX_PLIES`].
    pub plies: u32,
}

impl Default for BrinkmateArgs {
    fn default() -> BrinkmateArgs {
        BrinkmateArgs {
            common: CommonArgs::default(),
            plies: BrinkmateLimits::default().max_plies,
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

/// The words of a command line, read one flag at a time: `--flag value` and
/// `--flag=value` alike, with everything that is not a flag collected as the target.
struct Flags<'a> {
    words: std::slice::Iter<'a, String>,
    /// The flag last returned by [`Flags::next_flag`].
    flag: &'a str,
    /// Its `=value`, if it had one.
    inline: Option<&'a str>,
}

impl<'a> Flags<'a> {
    fn new(words: &'a [String]) -> Flags<'a> {
        Flags {
            words: words.iter(),
            flag: "",
            inline: None,
        }
    }

    /// The next flag; words that are not flags are added to `target` on the way.
    fn next_flag(&mut self, target: &mut Vec<String>) -> Option<&'a str> {
        for word in self.words.by_ref() {
            let (flag, inline) = match word.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v)),
                _ => (word.as_str(), None),
            };
            // `-` alone reads standard input; it is not a flag. (An SFEN hand field is
            // `-` too.)
            if flag.starts_with('-') && flag.len() > 1 {
                self.flag = flag;
                self.inline = inline;
                return Some(flag);
            }
            target.push(word.clone());
        }
        None
    }

    /// The current flag's value: after `=`, or the next word.
    fn value(&mut self) -> Result<&'a str, String> {
        match self.inline.take() {
            Some(v) => Ok(v),
            None => self
                .words
                .next()
                .map(String::as_str)
                .ok_or_else(|| format!("{} needs a value", self.flag)),
        }
    }

    /// The current flag's value as a whole number in `min..=max`.
    fn whole<T: std::str::FromStr>(&mut self, min: u64, max: u64) -> Result<T, String> {
        let v = self.value()?;
        whole(self.flag, v, min, max)
    }

    /// Reads the current flag into `a` if it is one the subcommands share; `Ok(false)`
    /// if it is not.
    fn common(&mut self, a: &mut CommonArgs) -> Result<bool, String> {
        match self.flag {
            "--time" | "-t" => {
                a.time = parse_duration(self.value()?).map_err(|e| format!("--time: {e}"))?
            }
            "--nodes" | "-n" => a.nodes = Some(self.whole(1, u64::MAX)?),
            "--hash" => a.hash_mb = self.whole(1, crate::options::MAX_HASH_MB)?,
            "--jobs" | "-j" => a.jobs = self.whole(1, 256)?,
            "--json" => a.json = true,
            "--quiet" | "-q" => a.quiet = true,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The checks on the shared settings that need all of them: a target, and tables that
/// fit in memory however the flags were ordered.
fn check_common(a: &CommonArgs, command: &str) -> Result<(), String> {
    if a.target.is_empty() {
        return Err(format!(
            "{command} needs an SFEN or a file (see kanju {command} --help)"
        ));
    }
    if let Some(total) = crate::sysmem::total_mib() {
        if (a.hash_mb as u64).saturating_mul(a.jobs as u64) > total * 3 / 4 {
            return Err(format!(
                "--hash: {} MiB per job does not fit in {total} MiB of memory",
                a.hash_mb
            ));
        }
    }
    Ok(())
}

/// The longest `--max-length`: past it the search's path would not hold the line.
const MAX_LENGTH: u64 = 10_000;

fn unknown_flag(flag: &str, command: &str) -> String {
    format!("unknown flag '{flag}' (see kanju {command} --help)")
}

/// Parses the words after `solve`. `Ok(None)` means `--help` was asked for.
pub fn parse_solve(args: &[String]) -> Result<Option<SolveArgs>, String> {
    let mut a = SolveArgs::default();
    let mut flags = Flags::new(args);
    while let Some(flag) = flags.next_flag(&mut a.common.target) {
        match flag {
            "-h" | "--help" => return Ok(None),
            "--threads" => a.threads = flags.whole(1, crate::options::MAX_THREADS)?,
            "--seed" => a.seed = flags.whole(0, u64::MAX)?,
            "--defender-root" => a.defender_root = true,
            "--proof-only" => a.proof_only = true,
            "--max-length" => a.max_length = Some(flags.whole(1, MAX_LENGTH)?),
            "--spare-rule" => {
                let v = flags.value()?;
                a.spare_rule = crate::options::parse_spare_rule(v).ok_or_else(|| {
                    format!("--spare-rule: '{v}' is not strict, twoply or classical")
                })?
            }
            "--futile-rule" => {
                let v = flags.value()?;
                a.futile_rule = crate::options::parse_futile_rule(v).ok_or_else(|| {
                    format!("--futile-rule: '{v}' is not same-length or any-length")
                })?
            }
            _ if flags.common(&mut a.common)? => {}
            f => return Err(unknown_flag(f, "solve")),
        }
    }
    check_common(&a.common, "solve")?;
    Ok(Some(a))
}

/// Parses the words after `brinkmate`. `Ok(None)` means `--help` was asked for.
pub fn parse_brinkmate(args: &[String]) -> Result<Option<BrinkmateArgs>, String> {
    let mut a = BrinkmateArgs::default();
    let mut flags = Flags::new(args);
    while let Some(flag) = flags.next_flag(&mut a.common.target) {
        match flag {
            "-h" | "--help" => return Ok(None),
            "--plies" => {
                a.plies = flags.whole(1, BrinkmateLimits::MAX_PLIES as u64)?;
                // The search would quietly take an even number as the odd one below it;
                // a user who asked for 2 more likely meant 3, so say so instead.
                if a.plies % 2 == 0 {
                    return Err(format!(
                        "--plies: '{}' is even; a brinkmate ends with the attacker's move, \
                         so its length is odd: 1, 3, 5, ... {}",
                        a.plies,
                        BrinkmateLimits::MAX_PLIES
                    ));
                }
            }
            _ if flags.common(&mut a.common)? => {}
            f => return Err(unknown_flag(f, "brinkmate")),
        }
    }
    check_common(&a.common, "brinkmate")?;
    Ok(Some(a))
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
        let c = &a.common;
        assert_eq!(c.target, v("4k4/9/4P4/9/9/9/9/9/9 b G 1"));
        assert_eq!(
            (c.time, c.nodes, c.json, c.jobs),
            (Some(Duration::from_secs(2)), Some(1000), true, 3)
        );
        let a = parse_solve(&v("9/9/9/9/9/9/9/9/9 b - 1")).unwrap().unwrap();
        assert_eq!(a.common.target.len(), 4);
        assert!(parse_solve(&v("x --threads 0")).is_err());
        assert!(parse_solve(&v("x --threads")).is_err());
        assert!(parse_solve(&v("x --frobnicate")).is_err());
        assert_eq!(parse_solve(&v("x --seed 7")).unwrap().unwrap().seed, 7);
        assert!(parse_solve(&v("x --seed -1")).is_err());
        assert!(parse_solve(&v("--json")).is_err());
        assert_eq!(parse_solve(&v("--help")), Ok(None));
    }

    #[test]
    fn brinkmate_flags() {
        let a = parse_brinkmate(&v("4k4/9/4P4/9/9/9/9/9/9 b G 1 --plies 3 --time=none -j 2"))
            .unwrap()
            .unwrap();
        assert_eq!(a.common.target, v("4k4/9/4P4/9/9/9/9/9/9 b G 1"));
        assert_eq!((a.plies, a.common.time, a.common.jobs), (3, None, 2));
        let a = parse_brinkmate(&v("x")).unwrap().unwrap();
        assert_eq!((a.plies, a.common.time), (1, Some(Duration::from_secs(10))));
        assert_eq!(
            parse_brinkmate(&v("x --plies 15")).unwrap().unwrap().plies,
            15
        );
        for bad in [
            "x --plies 2",
            "x --plies 0",
            "x --plies 17",
            "x --plies",
            "x --threads 2",
        ] {
            assert!(parse_brinkmate(&v(bad)).is_err(), "{bad}");
        }
        assert!(parse_brinkmate(&v("x --plies 4"))
            .unwrap_err()
            .contains("even"));
        assert!(parse_brinkmate(&v("--plies 3")).is_err());
        assert_eq!(parse_brinkmate(&v("--help")), Ok(None));
    }

    #[test]
    fn hash_is_checked_whatever_the_order_of_the_flags() {
        // Half the machine per job is within bounds once, not eight times.
        let Some(total) = crate::sysmem::total_mib() else {
            return;
        };
        let half = (total / 2).max(1).to_string();
        assert!(parse_solve(&v(&format!("x --hash {half}"))).is_ok());
        assert!(parse_solve(&v(&format!("x --hash {half} --jobs 8"))).is_err());
        assert!(parse_solve(&v(&format!("x --jobs 8 --hash {half}"))).is_err());
    }
}
