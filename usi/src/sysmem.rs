//! How much memory the machine has, so an absurd `USI_Hash` is refused instead of
//! aborting the process when the table is allocated.

/// Physical memory in MiB, where the platform tells (Linux `/proc/meminfo`).
pub fn total_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}
