//! Windows's console events through `SetConsoleCtrlHandler`: Ctrl-C as
//! SIGINT, Ctrl-Break, log-off and shutdown as SIGTERM, the console closed
//! as SIGHUP. Windows runs the handler on a thread of its own, so it hands
//! each to `on_stop` directly (a second one removes the files and exits).

use super::{on_stop, INSTALL, SIGNAL};
use crate::error::{SIGHUP, SIGINT, SIGTERM};
use std::sync::atomic::Ordering;
use windows_sys::core::BOOL;
use windows_sys::Win32::System::Console::{
    SetConsoleCtrlHandler, CTRL_BREAK_EVENT, CTRL_CLOSE_EVENT, CTRL_C_EVENT,
};

/// The POSIX number a console event is said as.
fn signal_of(event: u32) -> i32 {
    match event {
        CTRL_C_EVENT => SIGINT,
        CTRL_CLOSE_EVENT => SIGHUP,
        CTRL_BREAK_EVENT => SIGTERM,
        _ => SIGTERM, // CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT
    }
}

/// Every event is handled (TRUE): the process ends by `on_stop`, not by Windows.
unsafe extern "system" fn handler(event: u32) -> BOOL {
    on_stop(signal_of(event));
    1
}

/// Installs the console handler (once per process).
pub fn install_handlers() {
    INSTALL.call_once(|| {
        // SAFETY: a handler with the signature Windows calls; added, not replacing.
        unsafe { SetConsoleCtrlHandler(Some(handler), 1) };
    });
}

/// The first-event flag alone (candor's helper processes; none run on Windows yet).
pub fn install_flag_only() {
    INSTALL.call_once(|| {
        unsafe extern "system" fn flag_only(event: u32) -> BOOL {
            let _ =
                SIGNAL.compare_exchange(0, signal_of(event), Ordering::SeqCst, Ordering::SeqCst);
            1
        }
        // SAFETY: as above.
        unsafe { SetConsoleCtrlHandler(Some(flag_only), 1) };
    });
}
