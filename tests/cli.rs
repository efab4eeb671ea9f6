//! The command line: `kanju solve` and `kanju brinkmate` on one position and on files,
//! `kanju perft`, help, and errors with their exit codes.

mod common;
use common::problems;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn kanju(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kanju"))
        .args(args)
        .output()
        .expect("run kanju")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

#[test]
fn help_and_version() {
    let o = kanju(&["--help"]);
    assert!(o.status.success());
    let h = stdout(&o);
    for word in [
        "solve",
        "perft",
        "--time",
        "--nodes",
        "--threads",
        "--hash",
        "--json",
        "--defender-root",
        "--jobs",
        "USI_Hash",
        "brinkmate",
        "BRINKMATE:",
        "--plies",
    ] {
        assert!(h.contains(word), "help lacks {word}");
    }
    let o = kanju(&["--version"]);
    assert!(o.status.success() && stdout(&o).starts_with("kanju "));
    let o = kanju(&["solve", "--help"]);
    assert!(o.status.success() && stdout(&o).contains("--defender-root"));
    let o = kanju(&["brinkmate", "--help"]);
    assert!(o.status.success() && stdout(&o).contains("--plies"));
}

#[test]
fn solve_one_position_as_text() {
    let o = kanju(&["solve", problems::MATE1]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("mate in 1"), "{out}");
    assert!(out.contains("G*5b"), "{out}");
    // A drop with no board piece able to reach the square: no 打.
    assert!(out.contains("▲５二金"), "{out}");
    assert!(out.contains("余詰"), "{out}");
    assert!(out.contains("nodes:"), "{out}");
}

/// A node limit that the proof leaves no room under for the main line's exactness or its
/// cooks: the text says what is and is not known, and claims no search that did not run.
#[test]
fn a_solve_cut_short_says_what_it_did_not_do() {
    let o = kanju(&[
        "solve",
        problems::ZUKO77,
        "--nodes",
        "200000",
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("mate in 19"), "{out}");
    assert!(
        out.contains("note:      mate in 19 is not proven to be the problem's length"),
        "{out}"
    );
    assert!(out.contains("余詰:      not looked for"), "{out}");
    assert!(!out.contains("none found"), "{out}");
}

#[test]
fn solve_accepts_the_words_of_an_sfen_and_prefixes() {
    let words: Vec<&str> = problems::MATE3.split(' ').collect();
    let mut args = vec!["solve"];
    args.extend(&words);
    args.push("--json");
    let o = kanju(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "mate");
    assert_eq!(v["length"], 3);
    assert_eq!(v["length_exact"], true);
    assert_eq!(v["length_bound"], 3, "an exact length is its own bound");
    assert_eq!(v["moves"].as_array().unwrap().len(), 3);
    assert_eq!(v["kifu"].as_array().unwrap().len(), 3);
    assert!(v["kifu"][0].as_str().unwrap().starts_with('▲'));
    assert!(v["kifu"][1].as_str().unwrap().starts_with('△'));
    assert!(v["cooks"].is_array());
    assert!(v["cooks_undecided"].is_array());
    assert_eq!(v["undecided_drops"], serde_json::json!([]));
    // Every ply of the line was looked at for cooks.
    assert_eq!(v["cooks_checked_plies"], 3);
    assert_eq!(v["cooks_checked_last_plies"], 0);
    assert!(v["nodes"].as_u64().is_some() && v["nps"].as_u64().is_some());

    let o = kanju(&[
        "solve",
        &format!("position sfen {}", problems::MATE1),
        "--json",
    ]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["moves"][0], "G*5b");
}

/// An interposition the line plays as a defence only because its futility test was not
/// decided is named, in the text and in the JSON (see `mainline_rules.rs`,
/// `a_drop_counted_on_an_undecided_test_is_reported`).
#[test]
fn solve_names_drops_counted_on_undecided_tests() {
    let args = |json: bool| {
        let mut a = vec![
            "solve",
            "1+RBl1k3/1s+r6/2sN1p3/6+P2/9/9/9/9/9 b B2G2S2np 1 moves B*2c",
            "--nodes",
            "300000",
            "--hash",
            "64",
            "--threads",
            "1",
            "--spare-rule",
            "classical",
            "--futile-rule",
            "any-length",
            "--time",
            "300s",
            "--quiet",
        ];
        if json {
            a.push("--json");
        }
        kanju(&a)
    };
    let o = args(true);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["length"], 8);
    let drops = v["undecided_drops"].as_array().unwrap();
    assert_eq!(drops.len(), 1, "{v}");
    assert_eq!(drops[0]["ply"], 1);
    assert_eq!(drops[0]["move"], "N*3b");
    assert_eq!(drops[0]["kifu"], "△３二桂");
    let out = stdout(&args(false));
    assert!(
        out.contains("無駄合:    ply 1: △３二桂 (N*3b) counted as a defence"),
        "{out}"
    );
}

#[test]
fn solve_nomate_and_timeout() {
    let o = kanju(&["solve", problems::NOMATE, "--json", "--time", "30s"]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "nomate");
    let o = kanju(&["solve", problems::HARD, "--json", "--time", "300ms"]);
    assert!(o.status.success());
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "unknown");
    assert!(v["reason"].as_str().unwrap().contains("time"));
    let o = kanju(&[
        "solve",
        problems::HARD,
        "--json",
        "--nodes",
        "1000",
        "--time",
        "none",
    ]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "unknown");
}

#[test]
fn solve_with_a_length_limit() {
    // antma-tsume7-4 mates in 7 and no sooner: within 7 the mate comes back, within 5
    // the answer says no mate within the limit, and an absurd limit is refused.
    let pos = "ln7/1k7/1pp1S4/p8/9/9/9/9/9 b RBGNrb3g3s2n3l15p 1";
    let o = kanju(&["solve", pos, "--json", "--max-length", "7"]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(
        (&v["result"], &v["length"]),
        (&Value::from("mate"), &Value::from(7))
    );
    let o = kanju(&["solve", pos, "--json", "--max-length=5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "unknown");
    assert!(
        v["reason"].as_str().unwrap().contains("length limit"),
        "{v}"
    );
    assert_eq!(v["max_length"], 5);
    for bad in ["0", "-3", "many", "99999"] {
        let o = kanju(&["solve", pos, "--max-length", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--max-length"), "{}", stderr(&o));
    }
}

#[test]
fn solve_defender_root() {
    // After the attacker's first check, the defender is to move and is mated in 2.
    let o = kanju(&["solve", problems::MATE3, "--json"]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let first = v["moves"][0].as_str().unwrap().to_string();
    let pos = format!("{} moves {first}", problems::MATE3);
    let o = kanju(&["solve", &pos, "--defender-root", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "mate");
    assert_eq!(v["length"], 2);
    // In check, the side to move defends without being told, as over USI.
    let o = kanju(&["solve", &pos, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "mate");
    assert_eq!(v["length"], 2);
    assert_eq!(v["defender_root"], true);
    // A defender already mated: the line is empty.
    let mated = "4k4/4G4/4P4/9/9/9/9/9/9 w 2r2b3g4s4n4l17p 1";
    let o = kanju(&["solve", mated, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "mate", "{v}");
    assert_eq!(v["length"], 0);
}

#[test]
fn batch_of_mixed_lines_streams_json_in_input_order() {
    let text = format!(
        "# a comment, then a blank line\n\n{mate3}\nsfen {mate1}\nposition sfen {nomate}\n\
         {{\"name\": \"json-one\", \"sfen\": \"{mate3b}\", \"mate_plies\": 3}}\n\
         this is not a position\n\
         {{\"name\": \"nifu\", \"sfen\": \"4k4/9/4P4/9/4P4/9/9/9/9 b G 1\"}}\n\
         {{\"no_sfen\": 1}}\n{white}\n",
        mate3 = problems::MATE3,
        mate1 = problems::MATE1,
        nomate = problems::NOMATE,
        mate3b = problems::MATE3B,
        white = problems::WHITE_MATE1,
    );
    let f = temp_file("mixed.txt", text.as_bytes());
    let o = kanju(&["solve", f.to_str().unwrap(), "--jobs", "2", "--time", "30s"]);
    // Bad lines make the exit status 1, after everything else was solved.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let recs: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect();
    let lines: Vec<u64> = recs.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 8, 9, 10]);
    let results: Vec<&str> = recs.iter().map(|r| r["result"].as_str().unwrap()).collect();
    assert_eq!(
        results,
        ["mate", "mate", "nomate", "mate", "error", "error", "error", "mate"]
    );
    assert_eq!(recs[3]["name"], "json-one");
    assert_eq!(recs[3]["expected_plies"], 3);
    assert_eq!(recs[3]["length"], 3);
    assert!(
        recs[5]["error"].as_str().unwrap().contains("nifu"),
        "{}",
        recs[5]
    );
    let err = stderr(&o);
    for n in [7, 8, 9] {
        assert!(err.contains(&format!("line {n}:")), "{err}");
    }
    assert!(err.contains("8 problems"), "{err}");
}

#[test]
fn batch_over_the_shared_short_tests_writes_one_object_per_problem() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/problems/tsume_short_tests.jsonl"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("skipped: {path} is not there");
        return;
    };
    let n = text.lines().filter(|l| !l.trim().is_empty()).count();
    let o = kanju(&["solve", path, "--time", "200ms", "--jobs", "2", "--quiet"]);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), n);
    let mut rejected = 0;
    for l in out.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert!(v["name"].is_string() && v["result"].is_string(), "{l}");
        if v["result"] == "error" {
            // Only a position the rules forbid may be rejected (see NOT_TO_MOVE_IN_CHECK).
            assert!(
                v["error"].as_str().unwrap().starts_with("bad position"),
                "{l}"
            );
            rejected += 1;
        }
    }
    assert_eq!(
        o.status.code(),
        Some(if rejected > 0 { 1 } else { 0 }),
        "{}",
        stderr(&o)
    );
}

#[test]
fn errors_name_the_problem_and_exit_non_zero() {
    // A bad SFEN on the command line.
    let o = kanju(&["solve", "4k4/9/4P4/9/9/9/9/9 b G 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad position"), "{}", stderr(&o));
    // Something that is not a position at all.
    let o = kanju(&["solve", "hello world"]);
    assert_eq!(o.status.code(), Some(1));
    // An unreadable file.
    let o = kanju(&["solve", "/nonexistent/problems.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/problems.jsonl"));
    // Bad flags.
    for args in [
        vec!["solve", problems::MATE1, "--time", "soon"],
        vec!["solve", problems::MATE1, "--threads", "0"],
        vec!["solve", problems::MATE1, "--jobs"],
        vec!["solve", problems::MATE1, "--hash", "99999999999"],
        vec!["solve", problems::MATE1, "--frobnicate"],
        vec!["solve"],
        vec!["frobnicate"],
        vec!["perft"],
        vec!["perft", "x"],
    ] {
        let o = kanju(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
    }
}

#[test]
fn a_file_that_is_not_a_problem_file() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let f = temp_file("binary.bin", &bytes);
    let o = kanju(&["solve", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    for l in stdout(&o).lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["result"], "error");
    }
    let f = temp_file("empty.txt", b"\n# nothing here\n");
    let o = kanju(&["solve", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no problems"));
}

#[test]
fn perft_counts() {
    let o = kanju(&["perft", "1"]);
    assert_eq!(stdout(&o).trim(), "30");
    let o = kanju(&["perft", "3"]);
    assert_eq!(stdout(&o).trim(), "25470");
    let o = kanju(&["perft", "1", "--sfen", problems::MATE1]);
    assert!(o.status.success());
    assert!(stdout(&o).trim().parse::<u64>().unwrap() > 0);
    let o = kanju(&["perft", "1", "--sfen", "4k4/9/4P4/9/4P4/9/9/9/9 b G 1"]);
    assert_eq!(o.status.code(), Some(1));
}

/// osl-proofDisproofPieces-test_proof1tesuki0 (../shared/problems/hisshi/hisshi.jsonl):
/// a one-move brinkmate, 2d2c+.
const HISSHI1: &str = "8k/9/9/7P1/9/9/PPPPL4/RSGSS4/RGKGS4 b G2b4n3l13p 1";

/// The results a brinkmate search may end in. The search's answers are tested with the
/// search (tsume/tests/brinkmate.rs); here, only those the command line must pass on.
const BRINKMATE_RESULTS: [&str; 4] = ["brinkmate", "mate", "nobrinkmate", "unknown"];

/// Checks one `kanju brinkmate` JSON record of a search that ran: the fields the result
/// calls for are there and agree with each other.
fn check_brinkmate_record(v: &Value) {
    let result = v["result"].as_str().unwrap_or_else(|| panic!("{v}"));
    assert!(BRINKMATE_RESULTS.contains(&result), "{v}");
    assert!(v["sfen"].is_string() && v["line"].is_u64(), "{v}");
    assert!(v["max_plies"].is_u64(), "{v}");
    assert!(
        v["threatmates"]
            .as_array()
            .is_some_and(|t| t.iter().all(Value::is_string)),
        "{v}"
    );
    assert!(
        v["nodes"].is_u64() && v["time_ms"].is_number() && v["nps"].is_u64(),
        "{v}"
    );
    if matches!(result, "brinkmate" | "mate") {
        let moves = v["moves"].as_array().unwrap_or_else(|| panic!("{v}"));
        assert!(moves.iter().all(Value::is_string), "{v}");
        assert_eq!(v["plies"].as_u64(), Some(moves.len() as u64), "{v}");
        assert_eq!(v["kifu"].as_array().map(Vec::len), Some(moves.len()), "{v}");
    } else {
        assert!(v.get("moves").is_none() && v.get("plies").is_none(), "{v}");
    }
    if result == "brinkmate" {
        for r in v["replies"].as_array().unwrap_or_else(|| panic!("{v}")) {
            assert!(r["reply"].is_string(), "{r}");
            assert!(r["mate"].as_array().is_some_and(|m| !m.is_empty()), "{r}");
        }
    } else {
        assert!(v.get("replies").is_none(), "{v}");
    }
    assert_eq!(v["reason"].is_string(), result == "unknown", "{v}");
    assert!(v.get("error").is_none(), "{v}");
}

#[test]
fn brinkmate_one_position_as_text() {
    let o = kanju(&["brinkmate", HISSHI1, "--time", "5s"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let result = out
        .lines()
        .find_map(|l| l.strip_prefix("result:"))
        .unwrap_or_else(|| panic!("no result line: {out}"))
        .trim();
    // OSL's proof1tesuki0: the pawn promotes on 2c, and every one of the 241 replies is
    // mated (tsume/tests/brinkmate.rs checks the mates themselves).
    assert_eq!(result, "brinkmate in 1 ply", "{out}");
    assert!(out.contains("usi:       2d2c+"), "{out}");
    assert!(out.contains("replies:   241, each mated:"), "{out}");
    assert!(out.contains("別解:"), "{out}");
    for field in ["position:", "nodes:", "time:", "nps:"] {
        assert!(out.contains(field), "{out}");
    }
}

#[test]
fn brinkmate_json_has_every_field_its_result_calls_for() {
    // The words of the SFEN, a prefix, and flags in either form, as solve takes them.
    let words: Vec<&str> = HISSHI1.split(' ').collect();
    let mut args = vec!["brinkmate", "sfen"];
    args.extend(&words);
    args.extend(["--json", "--plies=3", "--time", "5s", "--hash", "64"]);
    let o = kanju(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON object");
    check_brinkmate_record(&v);
    assert_eq!(v["sfen"], HISSHI1);
    assert_eq!(v["max_plies"], 3);
    // Asked for up to 3 plies, the one-move brinkmate is still the answer.
    assert_eq!(v["result"], "brinkmate", "{v}");
    assert_eq!(v["moves"], serde_json::json!(["2d2c+"]), "{v}");
    assert_eq!(v["replies"].as_array().map(Vec::len), Some(241), "{v}");
    assert!(v["alternatives"].is_array() && v["alternatives_undecided"].is_array());
    assert!(v.get("expected").is_none(), "nothing was expected: {v}");
    // A node limit too small for any answer still gives a record, with its reason.
    let o = kanju(&[
        "brinkmate",
        HISSHI1,
        "--json",
        "--nodes",
        "1",
        "--time",
        "none",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    check_brinkmate_record(&v);
    assert_eq!(v["result"], "unknown", "{v}");
}

#[test]
fn brinkmate_errors_name_the_problem_and_exit_non_zero() {
    for (args, code, says) in [
        (vec!["--plies", "2"], 2, "even"),
        (vec!["--plies", "17"], 2, "1..=15"),
        (vec!["--plies", "0"], 2, "1..=15"),
        (vec!["--plies"], 2, "needs a value"),
        (vec!["--frobnicate"], 2, "unknown flag '--frobnicate'"),
        // A solve flag the brinkmate search has no use for.
        (vec!["--threads", "2"], 2, "unknown flag '--threads'"),
        (vec!["--time", "soon"], 2, "--time"),
        (vec!["--hash", "99999999999"], 2, "--hash"),
    ] {
        let mut all = vec!["brinkmate", HISSHI1];
        all.extend(&args);
        let o = kanju(&all);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    let o = kanju(&["brinkmate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("needs an SFEN or a file"),
        "{}",
        stderr(&o)
    );
    // Positions the rules reject (nifu), or that are not positions at all: exit 1, with
    // --json the error record too.
    let o = kanju(&["brinkmate", "4k4/9/4P4/9/4P4/9/9/9/9 b G 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad position"), "{}", stderr(&o));
    let o = kanju(&["brinkmate", "4k4/9/4P4/9/4P4/9/9/9/9 b G 1", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["result"], "error");
    assert!(v["error"].as_str().unwrap().contains("nifu"), "{v}");
    let o = kanju(&["brinkmate", "hello world"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not an SFEN"), "{}", stderr(&o));
    let o = kanju(&["brinkmate", "4k4/9/4P4/9/9/9/9/9 b G 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad position"), "{}", stderr(&o));
    // Files that cannot be read or hold no problems.
    let o = kanju(&["brinkmate", "/nonexistent/hisshi.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/hisshi.jsonl"));
    let f = temp_file("brinkmate-empty.txt", b"\n# nothing here\n");
    let o = kanju(&["brinkmate", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no problems"));
    let bytes: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let f = temp_file("brinkmate-binary.bin", &bytes);
    let o = kanju(&["brinkmate", f.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(1));
    for l in stdout(&o).lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["result"], "error");
    }
}

#[test]
fn brinkmate_batch_reports_bad_lines_and_goes_on() {
    let text = format!(
        "# hisshi records, a bare SFEN, and lines that are not problems\n\
         {{\"name\": \"given\", \"sfen\": \"{h}\", \"answer_usi\": \"2d2c+\", \"line\": [\"2d2c+\"]}}\n\
         this is not a position\n\
         {{\"name\": \"none\", \"sfen\": \"{mate1}\", \"answer_usi\": null}}\n\
         {{\"name\": \"nifu\", \"sfen\": \"4k4/9/4P4/9/4P4/9/9/9/9 b G 1\", \"answer_usi\": \"G*5b\"}}\n\
         \n{h}\n",
        h = HISSHI1,
        mate1 = problems::MATE1,
    );
    let f = temp_file("hisshi-mixed.jsonl", text.as_bytes());
    let o = kanju(&[
        "brinkmate",
        f.to_str().unwrap(),
        "--jobs",
        "2",
        "--time",
        "5s",
    ]);
    // The bad lines make the exit status 1, after every other line was searched.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let recs: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect();
    let lines: Vec<u64> = recs.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [2, 3, 4, 5, 7]);
    for i in [0, 2, 4] {
        check_brinkmate_record(&recs[i]);
    }
    for i in [1, 3] {
        assert_eq!(recs[i]["result"], "error", "{}", recs[i]);
        assert!(recs[i]["error"].is_string(), "{}", recs[i]);
    }
    assert!(recs[3]["error"].as_str().unwrap().contains("nifu"));
    // A record's name and answer come back, so that a script can compare; a null answer
    // (no brinkmate expected) as null, and none at all for a bare SFEN.
    assert_eq!(
        (&recs[0]["name"], &recs[0]["expected"]),
        (&Value::from("given"), &Value::from("2d2c+"))
    );
    assert_eq!(recs[2]["name"], "none");
    assert_eq!(recs[2].get("expected"), Some(&Value::Null));
    assert_eq!(
        recs[3]["expected"], "G*5b",
        "an error line keeps its record's fields"
    );
    assert!(recs[4].get("expected").is_none() && recs[4].get("name").is_none());
    let err = stderr(&o);
    for n in [3, 5] {
        assert!(err.contains(&format!("line {n}:")), "{err}");
    }
    assert!(err.contains("5 problems"), "{err}");
    assert!(err.contains("2 errors"), "{err}");

    // The same lines from standard input.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kanju"))
        .args(["brinkmate", "-", "--time", "5s", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kanju");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 5);
    assert!(!stderr(&o).contains("problems:"), "--quiet: {}", stderr(&o));
}

#[test]
fn brinkmate_batch_over_the_shared_hisshi_files_echoes_every_answer() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/problems/hisshi");
    for file in ["hisshi.jsonl", "tsumero.jsonl", "endgame.jsonl"] {
        let path = format!("{dir}/{file}");
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("skipped: {path} is not there");
            continue;
        };
        let given: Vec<Value> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let o = kanju(&[
            "brinkmate",
            &path,
            "--time",
            "300ms",
            "--jobs",
            "4",
            "--quiet",
        ]);
        let out = stdout(&o);
        assert_eq!(out.lines().count(), given.len(), "{file}");
        let mut rejected = 0;
        for (l, g) in out.lines().zip(&given) {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["result"] == "error" {
                // Only a position the rules forbid may be rejected.
                let e = v["error"].as_str().unwrap();
                assert!(e.starts_with("bad position"), "{l}");
                rejected += 1;
            } else {
                check_brinkmate_record(&v);
            }
            assert_eq!(v["name"], g["name"], "{l}");
            assert_eq!(v["expected"], g["answer_usi"], "{l}");
        }
        let code = if rejected > 0 { 1 } else { 0 };
        assert_eq!(o.status.code(), Some(code), "{file}: {}", stderr(&o));
    }
}
