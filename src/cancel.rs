//! Ctrl-C and SIGTERM. The first signal sets a flag that every measuring
//! loop polls, so the run stops cleanly: workers drain, test files are
//! removed by their owners, the Run is written as `interrupted`. A second
//! signal removes every registered test file at once, saves the Run as it
//! was last saved but `interrupted` (its *last words*, left by the Run's
//! recorder at each save), and exits: a Run is never left `running`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, Once};

static SIGNAL: AtomicI32 = AtomicI32::new(0);
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Directories candor created for test files, outermost first.
static REGISTERED_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// What the second signal saves before exiting: the Run as last saved,
/// marked interrupted. Returns what it did, in words.
pub type LastWords = Box<dyn FnOnce() -> String + Send>;
static LAST_WORDS: Mutex<Option<LastWords>> = Mutex::new(None);
/// Held while a Run file is written, so that the second signal's last
/// words never race the recorder's own save (and no save follows them).
static SAVING: Mutex<()> = Mutex::new(());

/// Runs `save` (a Run file's write) so that the second signal waits for
/// it, then leaves `words` for that signal (None: nothing to say, the Run
/// has ended).
pub fn saving<T>(save: impl FnOnce() -> T, words: impl FnOnce(&T) -> Option<LastWords>) -> T {
    let _held = SAVING.lock().unwrap_or_else(|e| e.into_inner());
    let saved = save();
    *LAST_WORDS.lock().unwrap_or_else(|e| e.into_inner()) = words(&saved);
    saved
}

/// The second signal's save: waits up to 5 s for a save in progress (a
/// slow disk), then writes the last words and keeps the save lock, so that
/// nothing is written after them.
fn say_last_words() -> Option<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let held = loop {
        match SAVING.try_lock() {
            Ok(held) => break held,
            // A thread that panicked while saving: the file is whole (saves rename).
            Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(std::sync::TryLockError::WouldBlock) => return Some(
                "the Run was being saved and did not finish within 5 s: it may still say running"
                    .into(),
            ),
        }
    };
    let said = LAST_WORDS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .map(|w| w());
    // Kept until the exit: no save may follow the last words.
    std::mem::forget(held);
    said
}

#[cfg(unix)]
#[path = "cancel/unix.rs"]
mod os;
#[cfg(windows)]
#[path = "cancel/windows.rs"]
mod os;
pub use os::{install_flag_only, install_handlers};

/// A stop asked for (`sig`, by its POSIX number): the first sets the flag
/// the loops poll; a second, the user insisting, removes the registered
/// files, says the last words and exits 128 + `sig`.
fn on_stop(sig: i32) {
    if SIGNAL.swap(sig, Ordering::SeqCst) != 0 {
        let kept = remove_registered();
        if let Some(said) = say_last_words() {
            eprintln!("candor: {said}");
        }
        if kept == 0 {
            eprintln!("candor: interrupted again; test files removed, exiting now");
        } else {
            eprintln!(
                "candor: interrupted again; exiting now, {kept} file(s) not removed (named above)"
            );
        }
        std::process::exit(128 + sig);
    }
}

/// The signal received, if any.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

thread_local! {
    /// Set while this thread does the work a stop leaves to do (`finishing`).
    static FINISHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `work`, part of what a stop itself asks for (a stopped fleet
/// fetching and saving the Runs its hosts kept), with `cancelled` false on
/// this thread meanwhile: the readers inside it must not give up at the
/// stop that `work` is answering.
pub fn finishing<T>(work: impl FnOnce() -> T) -> T {
    let before = FINISHING.with(|f| f.replace(true));
    let result = work();
    FINISHING.with(|f| f.set(before));
    result
}

/// True once a stop was asked for (outside `finishing`).
#[inline]
pub fn cancelled() -> bool {
    SIGNAL.load(Ordering::Relaxed) != 0 && !FINISHING.with(|f| f.get())
}

/// Drops `items` one by one until a stop is asked for; the rest is left
/// for the process's exit to free (freeing a large parsed input piece by
/// piece takes longer than the second a stop may take).
pub fn drop_until_stopped<T>(items: Vec<T>) {
    let mut items = items.into_iter();
    for item in items.by_ref() {
        drop(item);
        if cancelled() {
            std::mem::forget(items);
            return;
        }
    }
}

/// An `Interrupted` error when a stop was asked for.
pub fn check() -> Result<(), crate::error::Interrupted> {
    match signal() {
        Some(s) if cancelled() => Err(crate::error::Interrupted(s)),
        _ => Ok(()),
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
            let _ = SIGNAL.compare_exchange(
                0,
                crate::error::SIGHUP,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
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

/// Registers a directory candor created, to remove (if empty) after the
/// registered files if the user interrupts twice.
pub fn register_dir(path: PathBuf) {
    REGISTERED_DIRS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path);
}

/// Forgets a registered directory (its owner removed it).
pub fn unregister_dir(path: &std::path::Path) {
    REGISTERED_DIRS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}

/// Removes every registered file, then every registered directory,
/// innermost first (only empty ones: what else is there is not candor's,
/// and the directory stays, said as a note); the number left (each named
/// on stderr; one that could not be removed for another reason is for the
/// user to remove by hand).
fn remove_registered() -> usize {
    let kept = remove_registered_files();
    let dirs = REGISTERED_DIRS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut kept_dirs = 0;
    for d in dirs.iter().rev() {
        match std::fs::remove_dir(d) {
            // Files candor did not make are in it now (another program's,
            // or the user's): the directory is theirs to keep or remove.
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                eprintln!(
                    "candor: note: left the directory it created {} in place: it now holds files candor did not make",
                    d.display()
                );
                kept_dirs += 1;
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                eprintln!(
                    "candor: warning: cannot remove the directory it created {}: {e} (remove it by hand)",
                    d.display()
                );
                kept_dirs += 1;
            }
            _ => {}
        }
    }
    kept + kept_dirs
}

fn remove_registered_files() -> usize {
    let paths = REGISTERED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut kept = 0;
    for p in paths {
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                eprintln!(
                    "candor: warning: cannot remove {}: {e} (remove it by hand)",
                    p.display()
                );
                kept += 1;
            }
            _ => {}
        }
    }
    kept
}
