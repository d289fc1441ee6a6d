//! SIGINT, SIGTERM and SIGHUP through signal-hook: a watcher thread hands
//! each to `on_stop`.

use super::{on_stop, INSTALL, SIGNAL};
use std::sync::atomic::Ordering;

/// Installs the SIGINT/SIGTERM/SIGHUP watcher (once per process).
pub fn install_handlers() {
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(s) => s,
            Err(_) => return,
        };
        let watcher = std::thread::Builder::new()
            .name("candor-signals".into())
            .spawn(move || {
                for sig in signals.forever() {
                    on_stop(sig);
                }
            });
        if watcher.is_err() {
            // No thread may start (a pids cgroup or `ulimit -u` at its
            // limit): the signals dropped with the closure are no longer
            // delivered anywhere, so they are caught here instead. The
            // first sets the flag as above; the next is the signal's
            // default (the process ends by it, as it would without candor).
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                // SAFETY: the action stores into an atomic or re-raises
                // with the default action, both async-signal-safe.
                let _ = unsafe {
                    signal_hook::low_level::register(sig, move || {
                        if SIGNAL.swap(sig, Ordering::SeqCst) != 0 {
                            let _ = signal_hook::low_level::emulate_default_handler(sig);
                        }
                    })
                };
            }
        }
    });
}

/// The first-signal flag without the watcher thread, for candor's own
/// helper processes that must stay single-threaded (a UnixBench copy: a
/// second thread would share its descriptor table and make every read and
/// write take the kernel's shared-table path, which UnixBench's programs
/// never pay). Each SIGINT, SIGTERM or SIGHUP only sets the flag the loops
/// poll; the process that started the helper decides what a second one means.
pub fn install_flag_only() {
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            // SAFETY: the action only stores into an atomic, which is
            // async-signal-safe.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    let _ = SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
                })
            };
        }
    });
}
