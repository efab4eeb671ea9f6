//! The `kanju` command line: USI by default, `solve`, `brinkmate`, `perft`, `--help`.

mod args;
mod batch;
mod brinkmate;
mod guard;
mod job;
mod json;
mod problems;
mod solve;
mod stats;

pub use args::{
    parse_brinkmate, parse_duration, parse_solve, BrinkmateArgs, CommonArgs, SolveArgs,
};
pub use problems::{parse_line, Line, Problem};

use crate::frontend::{self, Flow, Identity};
use crate::output::Output;
use job::Job;
use kanju_tsume::Solver;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The help text; `VERSION` is replaced by the build's version.
const HELP: &str = "\
Kanju VERSION: a shogi mate (tsume) engine

USAGE:
    kanju                          speak USI on stdin/stdout (for GUIs and scripts)
    kanju solve <SFEN | FILE> [OPTIONS]
    kanju brinkmate <SFEN | FILE> [OPTIONS]
    kanju perft <DEPTH> [--sfen <SFEN>]
    kanju --help | --version

USI:
    Register the kanju executable in ShogiGUI, Shogidokoro or ShogiHome as a mate
    (tsume) engine. Commands: usi, isready, setoption, usinewgame, position,
    go mate <ms>|infinite [nodes N], go btime/wtime/byoyomi/movetime/infinite,
    stop, ponderhit, gameover, quit. A mate search ends in exactly one of
    'checkmate <moves>', 'checkmate nomate' (proven) or 'checkmate timeout'.
    Options: USI_Hash (MiB), Threads, PvInterval (ms, 0 = off), NodesLimit (0 = none),
    RootIsAndNodeIfChecked, GenerateAllLegalMoves, WriteDebugLog, ClearHash.
    Logs go to stderr; set RUST_LOG=debug for more.

SOLVE:
    <SFEN>             a position: '<board> <side> <hands> [<move number>]', optionally
                       preceded by 'sfen' or 'position sfen' and followed by
                       'moves ...'; 'startpos' works too. Quote it or pass its words.
    <FILE>             one problem per line: an SFEN as above, or a JSON object with a
                       'sfen' field (and optionally 'name', 'mate_plies'). Blank lines and
                       lines starting with '#' are skipped. '-' reads standard input.
                       Results are JSON Lines on stdout, one per problem, in input order;
                       a progress bar (on a terminal) and a summary go to stderr.
    --time <T>         time per problem: 10s, 500ms, 2m, 1h, or none  [default: 10s]
    --nodes <N>        node limit per problem
    --threads <T>      solver threads per problem  [default: 1]
    --hash <MiB>       table size per job  [default: 256]
    --jobs <J>         problems solved at once (each with its own table)  [default: 1]
    --json             print a single problem's result as JSON too
    --defender-root    the side to move defends: is every defence mated?
                       (a side to move in check always defends)
    --proof-only       stop at the first verified mate (no exact length, 無駄合,
                       駒余り or 余詰 work)
    --max-length <N>   look only for mates of at most N plies, every interposition
                       counted; none within them is 'unknown' (longer ones may exist)
    --quiet            no progress bar or summary
    --seed <S>         vary the search's move-order noise; 0, the default, is the
                       search that repeats exactly on one thread. For measuring how
                       much a change to the search owes to chance  [default: 0]
    --spare-rule <R>   how a defence whose mate leaves spare pieces (駒余り) ranks:
                       strict: the longest defence wins, spare pieces break ties;
                       twoply: below one without that is 2 plies shorter (二手変長);
                       classical (Shogi Zuko, Shogi Muso): below any one without
                       [default: strict]
    --futile-rule <R>  when a dropped interposition is futile (無駄合): taken, and
                       the piece given back, the king is still mated
                       same-length: within the other defences' length (Kakinoki);
                       any-length (Shogi Zuko, Shogi Muso): however long
                       [default: same-length]

    For one problem Kanju prints the result, the line in USI and in Japanese notation
    (▲２四銀 △同玉 ...), the length, 余詰 (other mating moves on the attacker's side of
    the main line), 駒余り (pieces the attacker still holds at the end), nodes, time, nps.
    JSON fields: line, name, sfen, expected_plies, result (mate | nomate | unknown |
    error), moves, kifu, length, length_exact, length_bound (a length the problem's is
    proven not to exceed), cooks [{ply, main, alternative,
    main_kifu, alternative_kifu}], cooks_undecided (the same, for alternatives not
    settled within their node budget), cooks_checked_plies and cooks_checked_last_plies
    (the plies from the start, and when a deadline left a gap from the end, whose
    alternatives were all looked at), undecided_drops [{ply, move, kifu}] (interposing
    drops the line plays as defences because their futility tests were not decided within
    the limits), spare_pieces, reason, error, defender_root and
    max_length (when asked for), nodes, time_ms, nps.

BRINKMATE:
    Looks for a brinkmate (必至): a move after which every defence, counter-checks
    included, is mated by checks, reached through checks and threatmates (詰めろ).
    <SFEN>, <FILE> and '-' as for solve; a JSON record's 'answer_usi' is echoed.
    --plies <N>        the longest brinkmate looked for, counting the attacker's last
                       move: 1 (一手必至), 3 (三手必至), ...; odd, 1..=15  [default: 1]
    --time <T>         time per problem, as for solve  [default: 10s]
    --nodes <N>        node limit per problem
    --hash <MiB>       table size per job  [default: 256]
    --jobs <J>         problems searched at once (each with its own table)  [default: 1]
    --json             print a single problem's result as JSON too
    --quiet            no progress bar or summary

    For one position Kanju prints the result (brinkmate, mate, no brinkmate (proven
    within N plies), or unknown (why)), the line in USI and in Japanese notation, the
    threatmates found at the root (詰めろ), for a brinkmate the other first moves that
    win as quickly (別解) and every defence with its mate, nodes, time, nps. The search
    runs on one thread.
    JSON fields: line, name, sfen, expected (the record's answer_usi: the expected first
    move, null for none), result (brinkmate | mate | nobrinkmate | unknown | error),
    max_plies, moves, kifu, plies, replies [{reply, mate}], alternatives,
    alternatives_undecided, threatmates, reason, error, nodes, time_ms, nps.

PERFT:
    kanju perft 3                  leaf count of the legal move tree from the start
    kanju perft 2 --sfen <SFEN>    from another position

EXIT STATUS:
    0  done (whatever the results)
    1  a position or a line of a file is not a problem (a batch still does the rest)
    2  bad command line or unreadable file
";

fn help(version: &str) -> String {
    HELP.replace("VERSION", version)
}

/// Runs the program with `args` (without the program name). Returns the exit code.
/// After USI `quit` it returns at once, without waiting for a search: the caller should
/// exit the process with the code.
pub fn main(args: &[String], version: &str) -> i32 {
    let identity = Identity {
        name: format!("Kanju {version}"),
        author: "the Kanju developers".into(),
    };
    match args.first().map(String::as_str) {
        None | Some("usi") => {
            // Whether it ended by `quit` or end of input, the caller exits at once, which
            // also ends any solver threads still winding down.
            let _: Flow = frontend::run(std::io::stdin().lock(), Output::stdout(), identity);
            0
        }
        Some("-h" | "--help" | "help") => {
            print!("{}", help(version));
            0
        }
        Some("-V" | "--version" | "version") => {
            println!("kanju {version}");
            0
        }
        Some("solve") => solve_cmd(&args[1..], version),
        Some("brinkmate") => brinkmate_cmd(&args[1..], version),
        Some("perft") => perft_cmd(&args[1..]),
        Some(other) => {
            eprintln!("kanju: unknown command '{other}' (see kanju --help)");
            2
        }
    }
}

/// What a subcommand's positional words name.
enum Target<'a> {
    /// A problem file, or `-` for standard input.
    File(&'a str),
    /// One position.
    One(Problem),
}

/// Reads a subcommand's positional words: a single word that cannot be a position
/// names a file. `Err` holds the exit code and the message.
fn target(words: &[String]) -> Result<Target<'_>, (i32, String)> {
    if let [word] = words {
        if !word.contains(char::is_whitespace) && word != "startpos" {
            return Ok(Target::File(word));
        }
    }
    match parse_line(1, &words.join(" ")) {
        Line::Problem(p) => Ok(Target::One(p)),
        Line::Error(e) => Err((1, e)),
        Line::Skip => Err((2, "no position given".into())),
    }
}

/// Parses a subcommand's words with `parse`, then runs a file as a batch or hands one
/// problem to `one`. Returns the exit code.
fn subcommand<J: Job>(
    args: &[String],
    version: &str,
    parse: fn(&[String]) -> Result<Option<J>, String>,
    one: impl FnOnce(&J, Problem) -> i32,
) -> i32 {
    let job = match parse(args) {
        Ok(Some(j)) => j,
        Ok(None) => {
            print!("{}", help(version));
            return 0;
        }
        Err(e) => {
            eprintln!("kanju {}: {e}", J::COMMAND);
            return 2;
        }
    };
    match target(&job.common().target) {
        Ok(Target::File(source)) => batch::run(&job, source),
        Ok(Target::One(p)) => one(&job, p),
        Err((code, e)) => {
            eprintln!("kanju {}: {e}", J::COMMAND);
            code
        }
    }
}

fn solve_cmd(args: &[String], version: &str) -> i32 {
    subcommand(args, version, parse_solve, |a: &SolveArgs, p| {
        let live = !a.common.quiet && !a.common.json && std::io::stderr().is_terminal();
        let interval = if live {
            Duration::from_secs(1)
        } else {
            Duration::ZERO
        };
        let mut solver = Solver::new(solve::config(a, interval));
        let mut show = |pr: &kanju_tsume::Progress| {
            if live {
                eprint!(
                    "\r\x1b[Knodes {}  nps {}  hashfull {}  time {:.1}s",
                    pr.nodes,
                    pr.nps,
                    pr.hashfull,
                    pr.elapsed.as_secs_f64()
                );
            }
        };
        let r = solve::solve(&mut solver, &p, a, &mut show);
        if live {
            eprint!("\r\x1b[K");
        }
        job::print_one(a, &p, r)
    })
}

fn brinkmate_cmd(args: &[String], version: &str) -> i32 {
    // The brinkmate search reports no progress, so there is no live line to show.
    subcommand(args, version, parse_brinkmate, |a: &BrinkmateArgs, p| {
        let r = a.search(&mut a.solver(), &p);
        job::print_one(a, &p, r)
    })
}

fn perft_cmd(args: &[String]) -> i32 {
    let mut depth = None;
    let mut sfen_words: Vec<String> = Vec::new();
    let mut in_sfen = false;
    for a in args {
        if a == "--sfen" {
            in_sfen = true;
        } else if in_sfen {
            sfen_words.push(a.clone());
        } else if a == "-h" || a == "--help" {
            println!(
                "kanju perft <DEPTH> [--sfen <SFEN>]: counts the leaves of the legal move tree"
            );
            return 0;
        } else if depth.is_none() {
            match a.parse::<u32>() {
                Ok(d) if d <= 12 => depth = Some(d),
                _ => {
                    eprintln!("kanju perft: '{a}' is not a depth in 0..=12");
                    return 2;
                }
            }
        } else {
            eprintln!("kanju perft: unexpected '{a}'");
            return 2;
        }
    }
    let Some(depth) = depth else {
        eprintln!("kanju perft: a depth is required");
        return 2;
    };
    if in_sfen && sfen_words.is_empty() {
        eprintln!("kanju perft: --sfen needs a position");
        return 2;
    }
    let text = if sfen_words.is_empty() {
        "startpos".to_string()
    } else {
        sfen_words.join(" ")
    };
    let p = match parse_line(1, &text) {
        Line::Problem(p) => p,
        Line::Error(e) => {
            eprintln!("kanju perft: {e}");
            return 1;
        }
        Line::Skip => {
            eprintln!("kanju perft: no position given");
            return 2;
        }
    };
    let run = std::panic::catch_unwind(|| {
        let pos = frontend::build_position(&p.start, &p.moves)?;
        let t = Instant::now();
        let n = kanju_engine::perft(&pos, depth);
        Ok::<_, String>((n, t.elapsed()))
    });
    match run {
        Ok(Ok((n, t))) => {
            println!("{n}");
            let nps = (n as u128 * 1_000_000 / t.as_micros().max(1)) as u64;
            eprintln!(
                "perft {depth}: {n} nodes in {:.3} s ({nps} nps)",
                t.as_secs_f64()
            );
            0
        }
        Ok(Err(e)) => {
            eprintln!("kanju perft: bad position: {e}");
            1
        }
        Err(p) => {
            eprintln!(
                "kanju perft: internal error: {}",
                crate::panics::panic_text(&*p)
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_tsume::BrinkmateLimits;

    #[test]
    fn help_gives_the_plies_the_search_allows() {
        let range = format!("odd, 1..={}", BrinkmateLimits::MAX_PLIES);
        assert!(HELP.contains(&range), "HELP should say {range}");
    }
}
