//! The `kanju` executable: see `kanju --help`.

fn main() {
    // stdout carries the USI protocol only; every log line goes to stderr.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = kanju_usi::cli::main(&args, env!("KANJU_VERSION"));
    // Exit without joining: after `quit` a solver may still be winding down, and USI
    // promises the GUI the process is gone within 100 ms.
    std::process::exit(code);
}
