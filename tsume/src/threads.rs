//! Running N searchers on one root. Threads share the table and marks of where each one
//! is (see [`crate::busy`]); each one also adds a little noise to its thresholds. So they
//! spread over different parts of the tree and pass each other proofs through the table.
//!
//! Searches run on spawned threads with large stacks: the recursion is as deep as the
//! longest line (Microcosmos: 1525 plies, and loops go deeper). The calling thread only
//! watches limits, reports progress and collects garbage.

use crate::dfpn::{Res, Searcher, Shared};
use crate::pv;
use crate::table::FILTER_REBUILD_SLICE;
use crate::Progress;
use kanju_engine::{Move, Position};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Stack for a search thread.
pub(crate) const STACK_BYTES: usize = 512 << 20;

/// How often the watcher wakes up.
const TICK: Duration = Duration::from_millis(2);

/// Table fill (per mille) at which garbage is collected.
const GC_AT: u32 = 900;

/// The outcome of the search phase.
pub(crate) struct RunResult {
    /// The root's result from a thread that finished it, if any did.
    pub root: Option<Res>,
}

/// Searches `root` with `threads` threads until it is solved or `sh` says stop.
pub(crate) fn run(
    sh: &Shared,
    root: &Position,
    threads: usize,
    start: Instant,
    progress_interval: Duration,
    progress: &mut dyn FnMut(&Progress),
) -> RunResult {
    let threads = threads.max(1);
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for t in 0..threads {
            let b = std::thread::Builder::new()
                .name(format!("kanju-search-{t}"))
                .stack_size(STACK_BYTES);
            let h = b
                .spawn_scoped(scope, move || {
                    let mut s = Searcher::new(sh, t);
                    let r = s.search_root(root);
                    s.poll();
                    // How the threads shared the work: with two, whether the helper's
                    // entries shortened the leader's search or lengthened it.
                    log::debug!("search thread {t}: {} nodes", s.nodes);
                    if r.pn == 0 || r.dn == 0 {
                        sh.done.store(true, Ordering::Relaxed);
                        Some(r)
                    } else {
                        None
                    }
                })
                .expect("spawn a search thread");
            handles.push(h);
        }
        let watcher = Searcher::new(sh, usize::MAX);
        let mut last_progress = Instant::now();
        let mut last_gc_check = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(TICK);
            // Limits are also polled by the searchers; checking here too keeps a stop
            // prompt even while every searcher is inside one long expansion.
            if sh.stop.load(Ordering::Relaxed) {
                sh.abort(crate::UnknownReason::Stopped);
            }
            if sh.deadline.is_some_and(|d| Instant::now() >= d) {
                sh.abort(crate::UnknownReason::Time);
            }
            sh.table.rebuild_filter_step(FILTER_REBUILD_SLICE);
            if last_gc_check.elapsed() >= Duration::from_millis(100) {
                last_gc_check = Instant::now();
                if sh.table.hashfull() >= GC_AT {
                    let line = pv::best_line(&watcher, root, 256);
                    let keep = protected_keys(&watcher, root, &line);
                    // A stop, a deadline or a finished search ends the pass early.
                    let give_up = || {
                        sh.stop.load(Ordering::Relaxed)
                            || sh.done.load(Ordering::Relaxed)
                            || sh.deadline.is_some_and(|d| Instant::now() >= d)
                    };
                    let started = Instant::now();
                    let freed = sh.table.collect(0.5, &keep, give_up);
                    log::debug!(
                        "table: collected {freed} entries in {:.3} s",
                        started.elapsed().as_secs_f64()
                    );
                }
            }
            if !progress_interval.is_zero() && last_progress.elapsed() >= progress_interval {
                last_progress = Instant::now();
                let elapsed = start.elapsed();
                let nodes = sh.nodes.load(Ordering::Relaxed);
                let line = pv::best_line(&watcher, root, 64);
                progress(&Progress {
                    nodes,
                    nps: nps(nodes, elapsed),
                    hashfull: sh.table.hashfull(),
                    elapsed,
                    pv: line,
                    mate_len: None,
                    length_bound: None,
                });
            }
        }
        let mut root_res = None;
        for h in handles {
            if let Ok(Some(r)) = h.join() {
                root_res.get_or_insert(r);
            }
        }
        RunResult { root: root_res }
    })
}

/// Keys of the positions along `line`: the current main line's proof lives there.
fn protected_keys(watcher: &Searcher, root: &Position, line: &[Move]) -> Vec<u64> {
    let mut pos = root.clone();
    let mut keys = vec![watcher.sh.key_of(&pos)];
    for &m in line {
        pos = pos.play(m);
        keys.push(watcher.sh.key_of(&pos));
    }
    keys
}

/// Nodes per second.
pub(crate) fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let us = elapsed.as_micros().max(1) as u64;
    nodes.saturating_mul(1_000_000) / us
}
