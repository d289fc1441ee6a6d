//! Ctrl-C and SIGTERM. The first signal sets a flag that every measuring
//! loop polls, so the run stops cleanly: workers drain, test files are
//! removed by their owners, the Run is written as `interrupted`. A second
//! signal removes every registered test file at once and exits.

use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, Once};

static SIGNAL: AtomicI32 = AtomicI32::new(0);
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Installs the SIGINT/SIGTERM/SIGHUP watcher (once per process).
pub fn install_handlers() {
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(s) => s,
            Err(_) => return,
        };
        std::thread::Builder::new()
            .name("candor-signals".into())
            .spawn(move || {
                for sig in signals.forever() {
                    if SIGNAL.swap(sig, Ordering::SeqCst) != 0 {
                        // Second signal: the user insists. Clean up and go.
                        remove_registered();
                        eprintln!("candor: interrupted again; test files removed, exiting now");
                        std::process::exit(128 + sig);
                    }
                }
            })
            .ok();
    });
}

/// The signal received, if any.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// True once a stop was asked for.
#[inline]
pub fn cancelled() -> bool {
    SIGNAL.load(Ordering::Relaxed) != 0
}

/// An `Interrupted` error when a stop was asked for.
pub fn check() -> Result<(), crate::error::Interrupted> {
    match signal() {
        Some(s) => Err(crate::error::Interrupted(s)),
        None => Ok(()),
    }
}

/// Stops the run as SIGHUP would when standard input reaches its end.
///
/// `candor fleet` starts the remote `candor run` over ssh without a
/// terminal, so a controller that is stopped, killed or cut off sends no
/// signal: the only thing the remote process sees is its standard input
/// (the ssh channel) closing. The controller keeps that channel open for the
/// whole run and closes it to stop the run; the remote candor then stops
/// like on Ctrl-C (test files removed, the Run saved as interrupted).
pub fn stop_when_stdin_closes() {
    std::thread::Builder::new()
        .name("candor-stdin-watch".into())
        .spawn(|| {
            use std::io::Read;
            let mut stdin = std::io::stdin().lock();
            let mut buf = [0u8; 256];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) => break,
                    Ok(_) => continue,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
            // Same as a first signal: the measuring loops stop at their next check.
            let _ = SIGNAL.compare_exchange(0, libc::SIGHUP, Ordering::SeqCst, Ordering::SeqCst);
        })
        .ok();
}

/// Registers a file to remove if the user interrupts twice.
pub fn register(path: PathBuf) {
    REGISTERED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path);
}

/// Forgets a registered file (its owner removed it).
pub fn unregister(path: &std::path::Path) {
    REGISTERED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}

fn remove_registered() {
    let paths = REGISTERED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
}
