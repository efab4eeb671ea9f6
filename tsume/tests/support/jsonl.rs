//! Just enough JSON to read the problem files: flat objects whose fields are strings,
//! numbers, null, or arrays of strings. Shared by the tests and the benchmark example.
#![allow(dead_code)]

/// One problem record.
#[derive(Clone, Debug)]
pub struct Problem {
    pub name: String,
    pub sfen: String,
    pub mate_plies: Option<u32>,
    pub solution: Option<Vec<String>>,
    /// Raw text of every field, for the rest.
    pub line: String,
}

impl Problem {
    /// The raw JSON text of `key`'s value, or `None`.
    pub fn raw(&self, key: &str) -> Option<&str> {
        raw_value(&self.line, key)
    }

    /// `key`'s value as a string, if it is one.
    pub fn string(&self, key: &str) -> Option<String> {
        self.raw(key).and_then(parse_string)
    }

    /// A field holding an array of strings, if present.
    pub fn strings(&self, key: &str) -> Option<Vec<String>> {
        self.raw(key).and_then(parse_string_array)
    }
}

fn raw_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    let start = line.find(&pat)? + pat.len();
    let rest = line[start..].trim_start();
    let bytes = rest.as_bytes();
    let end = match bytes.first()? {
        b'"' => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => break,
                    _ => i += 1,
                }
            }
            i + 1
        }
        b'[' => {
            let mut depth = 0;
            let mut in_str = false;
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' if in_str => i += 1,
                    b'"' => in_str = !in_str,
                    b'[' if !in_str => depth += 1,
                    b']' if !in_str => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i + 1
        }
        _ => rest.find([',', '}']).unwrap_or(rest.len()),
    };
    Some(rest[..end.min(rest.len())].trim())
}

fn parse_string(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?).unwrap_or('?'));
                }
                other => out.push(other),
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn parse_string_array(raw: &str) -> Option<Vec<String>> {
    let inner = raw.strip_prefix('[')?.strip_suffix(']')?;
    Some(
        inner
            .split(',')
            .filter_map(|s| parse_string(s.trim()))
            .collect(),
    )
}

/// Parses one line.
pub fn parse(line: &str) -> Option<Problem> {
    let mut p = Problem {
        name: String::new(),
        sfen: String::new(),
        mate_plies: None,
        solution: None,
        line: line.to_string(),
    };
    p.name = p.string("name")?;
    p.sfen = p.string("sfen")?;
    p.mate_plies = p.raw("mate_plies").and_then(|r| r.parse().ok());
    p.solution = p.raw("solution").and_then(parse_string_array);
    Some(p)
}

/// Reads a JSONL file.
pub fn read(path: &std::path::Path) -> Vec<Problem> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(parse)
        .collect()
}

/// The shared problem directory, relative to this crate.
pub fn problems_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/problems")
}
