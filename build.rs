// Embeds the git commit in the version string, so a GUI's engine list tells builds apart.
use std::process::Command;

fn main() {
    let describe = Command::new("git")
        .args(["describe", "--always", "--dirty", "--exclude", "*"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s.is_ascii());
    let version = env!("CARGO_PKG_VERSION");
    let full = match describe {
        Some(d) => format!("{version}-{d}"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=KANJU_VERSION={full}");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/index");
}
