//! Parsing one line from the GUI into a command. Pure text work: positions and moves
//! are checked later, against the engine's rules.

/// Where a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// `startpos`.
    Startpos,
    /// `sfen <board> <side> <hands> [<move number>]`, the four fields joined by spaces.
    Sfen(String),
}

/// The time of `go mate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateTime {
    /// `go mate`, `go mate infinite`.
    Infinite,
    /// `go mate <ms>`.
    Millis(u64),
}

/// The parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// `mate …`: a mate search answered with `checkmate`.
    pub mate: Option<MateTime>,
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `btime`, ms.
    pub btime: Option<u64>,
    /// `wtime`, ms.
    pub wtime: Option<u64>,
    /// `binc`, ms.
    pub binc: Option<u64>,
    /// `winc`, ms.
    pub winc: Option<u64>,
    /// `byoyomi`, ms.
    pub byoyomi: Option<u64>,
    /// `movetime`, ms.
    pub movetime: Option<u64>,
    /// `infinite`: `bestmove` waits for `stop`.
    pub infinite: bool,
    /// `ponder`: like `infinite` until `ponderhit` or `stop`.
    pub ponder: bool,
    /// What was not understood or is not supported (reported, then ignored).
    pub warnings: Vec<String>,
}

/// One command from the GUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `usi`.
    Usi,
    /// `isready`.
    IsReady,
    /// `setoption name <id> [value <v>]`.
    SetOption {
        /// The option name as sent.
        name: String,
        /// The value; `None` for a button or a missing `value`.
        value: Option<String>,
    },
    /// `usinewgame`.
    UsiNewGame,
    /// `position …`.
    Position {
        /// The starting position.
        start: Start,
        /// The moves after it, unchecked.
        moves: Vec<String>,
    },
    /// `go …`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `gameover …`.
    GameOver,
    /// `quit`.
    Quit,
    /// A blank line.
    Empty,
    /// A known command with unusable arguments; the text explains.
    Invalid(String),
    /// A `position` line that cannot be read; the text explains. Kept apart from `Invalid`
    /// because it also unsets the position.
    InvalidPosition(String),
    /// Not a USI command.
    Unknown(String),
}

/// Splits on whitespace, keeping each word's byte offset so that values with spaces
/// (option strings) can be taken verbatim.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &line[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

impl Command {
    /// Parses a line. Never fails: what cannot be understood becomes `Unknown` or `Invalid`.
    pub fn parse(line: &str) -> Command {
        let w = words(line);
        let Some(&(_, head)) = w.first() else {
            return Command::Empty;
        };
        let rest: Vec<&str> = w[1..].iter().map(|&(_, s)| s).collect();
        match head {
            "usi" => Command::Usi,
            "isready" => Command::IsReady,
            "usinewgame" => Command::UsiNewGame,
            "stop" => Command::Stop,
            "ponderhit" => Command::PonderHit,
            "quit" => Command::Quit,
            "gameover" => Command::GameOver,
            "setoption" => parse_setoption(line, &w[1..]),
            "position" => parse_position(&rest),
            "go" => parse_go(&rest),
            _ => Command::Unknown(line.trim().to_string()),
        }
    }
}

fn parse_setoption(line: &str, w: &[(usize, &str)]) -> Command {
    if w.first().map(|&(_, s)| s) != Some("name") || w.len() < 2 {
        return Command::Invalid("setoption: expected 'setoption name <id> [value <x>]'".into());
    }
    let value_at = w.iter().position(|&(_, s)| s.eq_ignore_ascii_case("value"));
    let name_words = &w[1..value_at.unwrap_or(w.len())];
    if name_words.is_empty() {
        return Command::Invalid("setoption: the option name is missing".into());
    }
    let name = name_words
        .iter()
        .map(|&(_, s)| s)
        .collect::<Vec<_>>()
        .join(" ");
    let value = value_at.map(|i| match w.get(i + 1) {
        Some(&(off, _)) => line[off..].trim_end().to_string(),
        None => String::new(),
    });
    Command::SetOption { name, value }
}

fn parse_position(rest: &[&str]) -> Command {
    let moves_at = rest.iter().position(|&s| s == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (
            &rest[..i],
            rest[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (rest, Vec::new()),
    };
    let start = match head.first() {
        Some(&"startpos") if head.len() == 1 => Start::Startpos,
        Some(&"startpos") => {
            return Command::InvalidPosition(format!(
                "position: unexpected '{}' after startpos (expected 'moves')",
                head[1]
            ))
        }
        Some(&"sfen") if (4..=5).contains(&head.len()) => Start::Sfen(head[1..].join(" ")),
        Some(&"sfen") => {
            return Command::InvalidPosition(format!(
                "position: an SFEN has 3 or 4 fields, got {} ('{}')",
                head.len() - 1,
                head[1..].join(" ")
            ))
        }
        Some(other) => {
            return Command::InvalidPosition(format!(
                "position: expected 'startpos' or 'sfen', got '{other}'"
            ))
        }
        None => {
            return Command::InvalidPosition(
                "position: expected 'startpos' or 'sfen <sfen>'".into(),
            )
        }
    };
    Command::Position { start, moves }
}

fn number(key: &str, v: Option<&&str>) -> Result<u64, String> {
    match v {
        // Clocks can go negative in some GUIs' arithmetic; treat that as no time left.
        Some(s) if s.starts_with('-') && s[1..].parse::<u64>().is_ok() => Ok(0),
        Some(s) => s
            .parse()
            .map_err(|_| format!("go: {key} needs a number, got '{s}'")),
        None => Err(format!("go: {key} needs a number")),
    }
}

fn parse_go(rest: &[&str]) -> Command {
    let mut go = Go::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let slot = match key {
            "btime" => Some(&mut go.btime),
            "wtime" => Some(&mut go.wtime),
            "binc" => Some(&mut go.binc),
            "winc" => Some(&mut go.winc),
            "byoyomi" => Some(&mut go.byoyomi),
            "movetime" => Some(&mut go.movetime),
            "nodes" => Some(&mut go.nodes),
            _ => None,
        };
        if let Some(slot) = slot {
            // A malformed value is reported and skipped: the search still runs, because a
            // GUI that sent `go` waits for an answer whatever it got wrong.
            match number(key, rest.get(i + 1)) {
                Ok(n) => *slot = Some(n),
                Err(e) => go.warnings.push(e),
            }
            i += 2;
            continue;
        }
        match key {
            "mate" => match rest.get(i + 1) {
                Some(&"infinite") => {
                    go.mate = Some(MateTime::Infinite);
                    i += 2;
                }
                Some(s) if s.bytes().all(|b| b.is_ascii_digit()) => match s.parse::<u64>() {
                    // `go mate 0` has no sensible finite meaning; GUIs that send it mean "no limit".
                    Ok(0) => {
                        go.mate = Some(MateTime::Infinite);
                        i += 2;
                    }
                    Ok(ms) => {
                        go.mate = Some(MateTime::Millis(ms));
                        i += 2;
                    }
                    Err(_) => {
                        go.warnings.push(format!(
                            "go: mate time '{s}' is too large; searching without a limit"
                        ));
                        go.mate = Some(MateTime::Infinite);
                        i += 2;
                    }
                },
                _ => {
                    go.mate = Some(MateTime::Infinite);
                    i += 1;
                }
            },
            "infinite" => {
                go.infinite = true;
                i += 1;
            }
            "ponder" => {
                go.ponder = true;
                i += 1;
            }
            "depth" => {
                go.warnings
                    .push("go: depth is not supported by a mate engine; ignored".into());
                i += 2;
            }
            "searchmoves" => {
                go.warnings
                    .push("go: searchmoves is not supported; ignored".into());
                i = rest.len();
            }
            other => {
                go.warnings
                    .push(format!("go: unknown parameter '{other}' ignored"));
                i += 1;
            }
        }
    }
    Command::Go(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setoption_forms() {
        assert_eq!(
            Command::parse("setoption name USI_Hash value 1024"),
            Command::SetOption {
                name: "USI_Hash".into(),
                value: Some("1024".into())
            }
        );
        assert_eq!(
            Command::parse("setoption name ClearHash"),
            Command::SetOption {
                name: "ClearHash".into(),
                value: None
            }
        );
        assert_eq!(
            Command::parse("setoption name BookFile value "),
            Command::SetOption {
                name: "BookFile".into(),
                value: Some(String::new())
            }
        );
        assert_eq!(
            Command::parse("setoption name EvalDir value my  dir "),
            Command::SetOption {
                name: "EvalDir".into(),
                value: Some("my  dir".into())
            }
        );
        assert!(matches!(Command::parse("setoption"), Command::Invalid(_)));
        assert!(matches!(
            Command::parse("setoption name"),
            Command::Invalid(_)
        ));
        assert!(matches!(
            Command::parse("setoption value 3"),
            Command::Invalid(_)
        ));
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            Command::parse("position startpos"),
            Command::Position {
                start: Start::Startpos,
                moves: vec![]
            }
        );
        assert_eq!(
            Command::parse("position startpos moves 7g7f 3c3d"),
            Command::Position {
                start: Start::Startpos,
                moves: vec!["7g7f".into(), "3c3d".into()]
            }
        );
        assert_eq!(
            Command::parse("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1 moves G*5b"),
            Command::Position {
                start: Start::Sfen("4k4/9/4P4/9/9/9/9/9/9 b G 1".into()),
                moves: vec!["G*5b".into()]
            }
        );
        assert_eq!(
            Command::parse("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G"),
            Command::Position {
                start: Start::Sfen("4k4/9/4P4/9/9/9/9/9/9 b G".into()),
                moves: vec![]
            }
        );
        assert!(matches!(
            Command::parse("position"),
            Command::InvalidPosition(_)
        ));
        assert!(matches!(
            Command::parse("position sfen"),
            Command::InvalidPosition(_)
        ));
        assert!(matches!(
            Command::parse("position sfen 9/9 b"),
            Command::InvalidPosition(_)
        ));
        assert!(matches!(
            Command::parse("position foo"),
            Command::InvalidPosition(_)
        ));
    }

    #[test]
    fn go_forms() {
        let Command::Go(g) = Command::parse("go mate 1000") else {
            panic!()
        };
        assert_eq!(g.mate, Some(MateTime::Millis(1000)));
        let Command::Go(g) = Command::parse("go mate") else {
            panic!()
        };
        assert_eq!(g.mate, Some(MateTime::Infinite));
        let Command::Go(g) = Command::parse("go mate infinite nodes 500") else {
            panic!()
        };
        assert_eq!((g.mate, g.nodes), (Some(MateTime::Infinite), Some(500)));
        let Command::Go(g) = Command::parse("go btime 100 wtime 200 byoyomi 3000") else {
            panic!()
        };
        assert_eq!(
            (g.btime, g.wtime, g.byoyomi, g.mate),
            (Some(100), Some(200), Some(3000), None)
        );
        let Command::Go(g) = Command::parse("go infinite") else {
            panic!()
        };
        assert!(g.infinite);
        let Command::Go(g) = Command::parse("go mate 500 btime x") else {
            panic!()
        };
        assert_eq!(
            (g.mate, g.btime, g.warnings.len()),
            (Some(MateTime::Millis(500)), None, 1)
        );
        let Command::Go(g) = Command::parse("go mate nodes") else {
            panic!()
        };
        assert_eq!(
            (g.mate, g.nodes, g.warnings.len()),
            (Some(MateTime::Infinite), None, 1)
        );
    }

    #[test]
    fn odd_lines() {
        assert_eq!(Command::parse("   "), Command::Empty);
        assert_eq!(Command::parse("  isready  "), Command::IsReady);
        assert!(matches!(Command::parse("hello world"), Command::Unknown(_)));
        assert!(matches!(Command::parse("\u{3042}"), Command::Unknown(_)));
    }
}
