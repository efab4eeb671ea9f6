//! What a subcommand's search is to the rest of the command line: how to run it on one
//! problem, and how to describe what it found. `solve` and `brinkmate` each say this;
//! the single-problem output and the batch machinery are then shared.

use super::args::CommonArgs;
use super::problems::Problem;
use kanju_tsume::Solver;

/// One kind of search the command line runs on each problem.
pub trait Job: Clone + Send + 'static {
    /// A finished search.
    type Found;
    /// The subcommand, for messages: `kanju {COMMAND}: …`.
    const COMMAND: &'static str;
    /// The result words a search can end in, as a batch's summary counts them (`error`
    /// aside).
    const RESULTS: &'static [&'static str];
    /// The summary's words for the problems [`Job::matched`] looked at: "3 of 4 {this}".
    const MATCHED: &'static str = "results are the expected ones";
    /// The settings every subcommand has.
    fn common(&self) -> &CommonArgs;
    /// A solver for one worker of a batch, without progress reports.
    fn solver(&self) -> Solver;
    /// Searches one problem. `Err` says why it could not; one that
    /// [`super::guard::is_internal`] recognises leaves `solver` unfit for reuse.
    fn search(&self, solver: &mut Solver, p: &Problem) -> Result<Self::Found, String>;
    /// The problem's JSON record.
    fn json_record(&self, p: &Problem, r: &Result<Self::Found, String>) -> String;
    /// The human-readable report of a finished search.
    fn text_report(&self, p: &Problem, found: &Self::Found) -> String;
    /// The result word of a finished search, one of [`Job::RESULTS`].
    fn result_word(found: &Self::Found) -> &'static str;
    /// Whether a finished search agrees with what the problem's record expects; `None`
    /// when the record expects nothing this can check.
    fn matched(_p: &Problem, _found: &Self::Found) -> Option<bool> {
        None
    }
}

/// Prints one problem's result on stdout, as JSON with `--json` and as text otherwise;
/// an error goes to stderr (and to stdout too, as JSON, with `--json`). Returns the exit
/// code: 0, or 1 if the problem could not be searched.
pub fn print_one<J: Job>(job: &J, p: &Problem, r: Result<J::Found, String>) -> i32 {
    let json = job.common().json;
    if let Err(e) = &r {
        eprintln!("kanju {}: {e}", J::COMMAND);
    }
    if json {
        println!("{}", job.json_record(p, &r));
    } else if let Ok(found) = &r {
        println!("{}", job.text_report(p, found));
    }
    i32::from(r.is_err())
}
