//! Reading problems from text: a bare SFEN, `sfen …`, `position sfen … [moves …]`,
//! `position startpos …`, or a JSON object with a `sfen` field (the shared problem files).

use super::guard;
use crate::command::Start;
use crate::frontend::build_position;
use kanju_engine::Position;
use serde_json::Value;

/// One problem to solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// 1-based line number in its file (1 for a command-line SFEN).
    pub line: usize,
    /// The `name` field of a JSON record.
    pub name: Option<String>,
    /// The starting position.
    pub start: Start,
    /// Moves to play from it first.
    pub moves: Vec<String>,
    /// The `mate_plies` field of a JSON record, echoed in the result.
    pub expected_plies: Option<u64>,
    /// The `answer_usi` field of a JSON record (the hisshi files' expected first move),
    /// echoed in a brinkmate result: `Some(None)` when it is null, as it is for a
    /// position that has no brinkmate; `None` when the record has no such field.
    pub expected_move: Option<Option<String>>,
}

impl Problem {
    /// The position as given, for echoing back.
    pub fn sfen_text(&self) -> String {
        let base = match &self.start {
            Start::Startpos => "startpos".to_string(),
            Start::Sfen(s) => s.clone(),
        };
        if self.moves.is_empty() {
            base
        } else {
            format!("{base} moves {}", self.moves.join(" "))
        }
    }

    /// The position, built and checked as the USI `position` command does it. `Err`
    /// says what is wrong with it.
    pub fn position(&self) -> Result<Position, String> {
        guard::catching("reading the position", || {
            build_position(&self.start, &self.moves)
        })?
        .map_err(|e| format!("bad position: {e}"))
    }
}

/// What a line holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// Blank or a `#` comment.
    Skip,
    /// A problem.
    Problem(Problem),
    /// Something that is not a problem; the text says why.
    Error(String),
}

/// What a JSON record says besides its position.
#[derive(Default)]
struct Fields {
    name: Option<String>,
    expected_plies: Option<u64>,
    expected_move: Option<Option<String>>,
}

fn parse_position_text(line: usize, text: &str, fields: Fields) -> Line {
    let mut t = text.trim();
    t = t.strip_prefix("position").map(str::trim_start).unwrap_or(t);
    t = t.strip_prefix("sfen ").map(str::trim_start).unwrap_or(t);
    let words: Vec<&str> = t.split_whitespace().collect();
    let moves_at = words.iter().position(|&w| w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (
            &words[..i],
            words[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (&words[..], Vec::new()),
    };
    let start = match head {
        ["startpos"] => Start::Startpos,
        [_, _, _] | [_, _, _, _] => Start::Sfen(head.join(" ")),
        _ => {
            return Line::Error(format!(
                "not an SFEN (expected 3 or 4 fields: board, side, hands[, move number]): '{}'",
                shorten(text)
            ))
        }
    };
    Line::Problem(Problem {
        line,
        name: fields.name,
        start,
        moves,
        expected_plies: fields.expected_plies,
        expected_move: fields.expected_move,
    })
}

fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Parses line `line` (1-based) of a problem file.
pub fn parse_line(line: usize, text: &str) -> Line {
    let t = text.trim().trim_start_matches('\u{feff}');
    if t.is_empty() || t.starts_with('#') {
        return Line::Skip;
    }
    if !t.starts_with('{') {
        return parse_position_text(line, t, Fields::default());
    }
    let v: Value = match serde_json::from_str(t) {
        Ok(v) => v,
        Err(e) => return Line::Error(format!("not valid JSON: {e}")),
    };
    let Some(sfen) = v.get("sfen").and_then(Value::as_str) else {
        return Line::Error("a JSON record needs a string field 'sfen'".into());
    };
    let fields = Fields {
        name: v.get("name").and_then(Value::as_str).map(String::from),
        expected_plies: v.get("mate_plies").and_then(Value::as_u64),
        // Present but neither a string nor null (a typo, a list) is taken as absent
        // rather than as "no brinkmate", which would claim more than the file says.
        expected_move: match v.get("answer_usi") {
            Some(Value::String(m)) => Some(Some(m.clone())),
            Some(Value::Null) => Some(None),
            _ => None,
        },
    };
    parse_position_text(line, sfen, fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_accepted_form() {
        let sfen = "4k4/9/4P4/9/9/9/9/9/9 b G 1";
        for text in [
            sfen.to_string(),
            format!("sfen {sfen}"),
            format!("position sfen {sfen}"),
            format!("  position   sfen {sfen}  "),
            format!("{{\"name\": \"x\", \"sfen\": \"{sfen}\", \"mate_plies\": 1}}"),
            format!("{{\"sfen\": \"sfen {sfen}\"}}"),
        ] {
            match parse_line(3, &text) {
                Line::Problem(p) => {
                    assert_eq!(p.start, Start::Sfen(sfen.into()), "{text}");
                    assert_eq!(p.line, 3);
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let Line::Problem(p) = parse_line(1, "position startpos moves 7g7f 3c3d") else {
            panic!()
        };
        assert_eq!((p.start, p.moves.len()), (Start::Startpos, 2));
        let Line::Problem(p) = parse_line(
            1,
            r#"{"name":"n","sfen":"9/9/9/9/9/9/9/9/9 b - 1","mate_plies":7}"#,
        ) else {
            panic!()
        };
        assert_eq!((p.name.as_deref(), p.expected_plies), (Some("n"), Some(7)));
        assert_eq!(p.expected_move, None);
    }

    #[test]
    fn hisshi_records_carry_their_answer() {
        let sfen = "9/9/9/9/9/9/9/9/9 b - 1";
        let answer = |text: String| match parse_line(1, &text) {
            Line::Problem(p) => p.expected_move,
            other => panic!("{text}: {other:?}"),
        };
        let given = format!(r#"{{"sfen":"{sfen}","answer_usi":"G*2b","line":["G*2b"]}}"#);
        assert_eq!(answer(given), Some(Some("G*2b".to_string())));
        let none = format!(r#"{{"sfen":"{sfen}","answer_usi":null}}"#);
        assert_eq!(answer(none), Some(None));
        assert_eq!(answer(sfen.to_string()), None);
    }

    #[test]
    fn skips_and_errors() {
        assert_eq!(parse_line(1, ""), Line::Skip);
        assert_eq!(parse_line(1, "# comment"), Line::Skip);
        assert!(matches!(parse_line(1, "hello"), Line::Error(_)));
        assert!(matches!(parse_line(1, "{\"sfen\": 3}"), Line::Error(_)));
        assert!(matches!(parse_line(1, "{not json"), Line::Error(_)));
        assert!(matches!(
            parse_line(1, "{\"name\": \"no sfen\"}"),
            Line::Error(_)
        ));
    }
}
