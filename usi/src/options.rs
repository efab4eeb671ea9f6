//! The USI options Kanju declares, and `setoption` validation.
//!
//! A rejected value never changes the option: GUIs resend their whole option set on every
//! connection, and a typo in one of them must not leave the engine half-configured.

use kanju_tsume::{Config, FutileRule, RootMode, SpareRule};
use std::time::Duration;

/// Largest `USI_Hash` declared. The real ceiling is the machine's memory (see
/// [`crate::sysmem`]); this only keeps GUI spin boxes sane.
pub const MAX_HASH_MB: u64 = 1 << 20;
/// Most search threads accepted.
pub const MAX_THREADS: u64 = 256;
/// `NodesLimit` is declared with a 32-bit maximum because some GUIs keep spin values in
/// an `int`; scripts may set larger values, which are accepted.
const DECLARED_MAX_NODES: u64 = i32::MAX as u64;

/// The current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `USI_Hash`, MiB.
    pub hash_mb: u64,
    /// `Threads`.
    pub threads: u64,
    /// `PvInterval`, ms; 0 turns periodic `info` off.
    pub pv_interval_ms: u64,
    /// `NodesLimit`; 0 = none.
    pub nodes_limit: u64,
    /// `RootIsAndNodeIfChecked`.
    pub root_is_and_if_checked: bool,
    /// `GenerateAllLegalMoves`.
    pub generate_all_moves: bool,
    /// `WriteDebugLog`.
    pub write_debug_log: bool,
    /// `SpareRule`.
    pub spare_rule: SpareRule,
    /// `FutileRule`.
    pub futile_rule: FutileRule,
}

impl Default for Options {
    fn default() -> Options {
        let c = Config::default();
        Options {
            hash_mb: c.hash_mb as u64,
            threads: c.threads as u64,
            pv_interval_ms: 1000,
            nodes_limit: 0,
            root_is_and_if_checked: true,
            generate_all_moves: c.generate_all_moves,
            write_debug_log: false,
            spare_rule: c.spare_rule,
            futile_rule: c.futile_rule,
        }
    }
}

fn spare_rule_name(r: SpareRule) -> &'static str {
    match r {
        SpareRule::Strict => "Strict",
        SpareRule::TwoPly => "TwoPly",
        SpareRule::Classical => "Classical",
    }
}

/// A `SpareRule` value (`--spare-rule` too), in any letter case.
pub(crate) fn parse_spare_rule(v: &str) -> Option<SpareRule> {
    match v.to_ascii_lowercase().as_str() {
        "strict" => Some(SpareRule::Strict),
        "twoply" => Some(SpareRule::TwoPly),
        "classical" => Some(SpareRule::Classical),
        _ => None,
    }
}

fn futile_rule_name(r: FutileRule) -> &'static str {
    match r {
        FutileRule::SameLength => "SameLength",
        FutileRule::AnyLength => "AnyLength",
    }
}

/// A `FutileRule` value (`--futile-rule` too), in any letter case, with or without a dash.
pub(crate) fn parse_futile_rule(v: &str) -> Option<FutileRule> {
    match v.to_ascii_lowercase().replace('-', "").as_str() {
        "samelength" => Some(FutileRule::SameLength),
        "anylength" => Some(FutileRule::AnyLength),
        _ => None,
    }
}

/// Something the front end must do after an option changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing beyond storing the value.
    None,
    /// Empty the transposition table now.
    ClearHash,
    /// Open or close the debug log.
    DebugLog(bool),
}

/// The file `WriteDebugLog` writes, in the engine's working directory.
pub const DEBUG_LOG_FILE: &str = "kanju-usi.log";

impl Options {
    /// The `option …` lines of the `usi` answer, with the defaults (not current values).
    pub fn usi_lines() -> Vec<String> {
        let d = Options::default();
        vec![
            format!(
                "option name USI_Hash type spin default {} min 1 max {MAX_HASH_MB}",
                d.hash_mb
            ),
            format!(
                "option name Threads type spin default {} min 1 max {MAX_THREADS}",
                d.threads
            ),
            format!(
                "option name PvInterval type spin default {} min 0 max 3600000",
                d.pv_interval_ms
            ),
            format!("option name NodesLimit type spin default 0 min 0 max {DECLARED_MAX_NODES}"),
            format!(
                "option name RootIsAndNodeIfChecked type check default {}",
                d.root_is_and_if_checked
            ),
            format!(
                "option name GenerateAllLegalMoves type check default {}",
                d.generate_all_moves
            ),
            format!(
                "option name WriteDebugLog type check default {}",
                d.write_debug_log
            ),
            format!(
                "option name SpareRule type combo default {} var Strict var TwoPly var Classical",
                spare_rule_name(d.spare_rule)
            ),
            format!(
                "option name FutileRule type combo default {} var SameLength var AnyLength",
                futile_rule_name(d.futile_rule)
            ),
            "option name ClearHash type button".to_string(),
        ]
    }

    /// Applies `setoption name <name> value <value>`. `Err` carries the text for
    /// `info string error: …`; the option keeps its old value then.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, String> {
        let key = name.to_ascii_lowercase();
        let v = value.unwrap_or("").trim();
        match key.as_str() {
            "usi_hash" | "hash" => {
                let mb = spin(name, v, 1, MAX_HASH_MB, self.hash_mb)?;
                if let Some(total) = crate::sysmem::total_mib() {
                    // The table must leave room for the OS and the GUI; allocation failure
                    // aborts a Rust process, so refuse here rather than die in isready.
                    let ceiling = total * 3 / 4;
                    if mb > ceiling {
                        return Err(format!(
                            "{name}: {mb} MiB is more than this machine can hold ({total} MiB in all, at most {ceiling} accepted); keeping {}",
                            self.hash_mb
                        ));
                    }
                }
                self.hash_mb = mb;
            }
            "threads" => self.threads = spin(name, v, 1, MAX_THREADS, self.threads)?,
            "pvinterval" => self.pv_interval_ms = spin(name, v, 0, 3_600_000, self.pv_interval_ms)?,
            "nodeslimit" => self.nodes_limit = spin(name, v, 0, u64::MAX, self.nodes_limit)?,
            "rootisandnodeifchecked" => {
                self.root_is_and_if_checked = check(name, v, self.root_is_and_if_checked)?
            }
            "generatealllegalmoves" => {
                self.generate_all_moves = check(name, v, self.generate_all_moves)?
            }
            "writedebuglog" => {
                self.write_debug_log = check(name, v, self.write_debug_log)?;
                return Ok(Effect::DebugLog(self.write_debug_log));
            }
            "sparerule" => {
                self.spare_rule = parse_spare_rule(v).ok_or_else(|| {
                    format!(
                        "{name}: '{v}' is not Strict, TwoPly or Classical; keeping {}",
                        spare_rule_name(self.spare_rule)
                    )
                })?
            }
            "futilerule" => {
                self.futile_rule = parse_futile_rule(v).ok_or_else(|| {
                    format!(
                        "{name}: '{v}' is not SameLength or AnyLength; keeping {}",
                        futile_rule_name(self.futile_rule)
                    )
                })?
            }
            "clearhash" => return Ok(Effect::ClearHash),
            // GUIs send it whether or not it is declared; Kanju never ponders.
            "usi_ponder" => {
                check(name, v, false)?;
            }
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(Effect::None)
    }

    /// The solver configuration these options ask for.
    pub fn solver_config(&self) -> Config {
        Config {
            threads: self.threads as usize,
            hash_mb: self.hash_mb as usize,
            progress_interval: Duration::from_millis(self.pv_interval_ms),
            generate_all_moves: self.generate_all_moves,
            spare_rule: self.spare_rule,
            futile_rule: self.futile_rule,
            main_line: true,
            seed: 0,
        }
    }

    /// The root mode for `go mate`.
    pub fn mate_root(&self) -> RootMode {
        if self.root_is_and_if_checked {
            RootMode::DefenderIfInCheck
        } else {
            RootMode::Attacker
        }
    }
}

fn spin(name: &str, v: &str, min: u64, max: u64, old: u64) -> Result<u64, String> {
    match v.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!(
            "{name}: {v} is outside {min}..={max}; keeping {old}"
        )),
        Err(_) if v.is_empty() => Err(format!("{name}: a value is required; keeping {old}")),
        Err(_) => Err(format!(
            "{name}: '{v}' is not a whole number in {min}..={max}; keeping {old}"
        )),
    }
}

fn check(name: &str, v: &str, old: bool) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!(
            "{name}: '{v}' is neither true nor false; keeping {old}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive_and_bad_values_keep_the_old_one() {
        let mut o = Options::default();
        assert_eq!(o.set("threads", Some("2")), Ok(Effect::None));
        assert_eq!(o.threads, 2);
        assert!(o.set("THREADS", Some("zero")).is_err());
        assert!(o.set("Threads", Some("0")).is_err());
        assert!(o.set("Threads", Some("")).is_err());
        assert!(o.set("Threads", None).is_err());
        assert_eq!(o.threads, 2);
        assert_eq!(
            o.set("rootisandnodeifchecked", Some("FALSE")),
            Ok(Effect::None)
        );
        assert!(!o.root_is_and_if_checked);
        assert!(o.set("RootIsAndNodeIfChecked", Some("maybe")).is_err());
        assert!(!o.root_is_and_if_checked);
    }

    #[test]
    fn hash_limits() {
        let mut o = Options::default();
        assert!(o.set("USI_Hash", Some("16")).is_ok());
        assert_eq!(o.hash_mb, 16);
        assert!(o.set("USI_Hash", Some("99999999999")).is_err());
        assert!(o.set("USI_Hash", Some("-5")).is_err());
        assert!(
            o.set("USI_Hash", Some("1048576")).is_err() || crate::sysmem::total_mib().is_none()
        );
        assert_eq!(o.hash_mb, 16);
    }

    #[test]
    fn buttons_ponder_and_unknown() {
        let mut o = Options::default();
        assert_eq!(o.set("ClearHash", None), Ok(Effect::ClearHash));
        assert_eq!(o.set("USI_Ponder", Some("true")), Ok(Effect::None));
        assert!(o.set("Foo", Some("1")).is_err());
        assert_eq!(o, Options::default());
    }

    #[test]
    fn spare_rule_reaches_the_solver_and_bad_values_keep_the_old_one() {
        let mut o = Options::default();
        assert_eq!(o.solver_config().spare_rule, SpareRule::Strict);
        assert_eq!(o.set("SpareRule", Some("classical")), Ok(Effect::None));
        assert_eq!(o.solver_config().spare_rule, SpareRule::Classical);
        let e = o.set("SpareRule", Some("Edo")).unwrap_err();
        assert!(e.contains("keeping Classical"), "{e}");
        assert_eq!(o.spare_rule, SpareRule::Classical);
        assert!(Options::usi_lines()
            .iter()
            .any(|l| l.contains("SpareRule type combo default Strict")));
    }

    #[test]
    fn futile_rule_reaches_the_solver_and_bad_values_keep_the_old_one() {
        let mut o = Options::default();
        assert_eq!(o.solver_config().futile_rule, FutileRule::SameLength);
        assert_eq!(o.set("FutileRule", Some("anylength")), Ok(Effect::None));
        assert_eq!(o.solver_config().futile_rule, FutileRule::AnyLength);
        let e = o.set("FutileRule", Some("Kakinoki")).unwrap_err();
        assert!(e.contains("keeping AnyLength"), "{e}");
        assert_eq!(o.futile_rule, FutileRule::AnyLength);
        assert!(Options::usi_lines()
            .iter()
            .any(|l| l.contains("FutileRule type combo default SameLength")));
    }

    #[test]
    fn declared_lines_are_ascii() {
        for l in Options::usi_lines() {
            assert!(l.is_ascii() && l.starts_with("option name "), "{l}");
        }
    }
}
