//! The message of a caught panic. The front ends catch the engine's panics so that one
//! bad search costs its own answer only, and each says what went wrong in its own way:
//! an `info string error:` line over USI, a message or a JSON record on the command line.

/// A panic's message: its text when it carries one, else "unknown panic".
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
