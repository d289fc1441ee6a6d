//! The machine's names as its kernel gives them: hostname, kernel release
//! and machine (`uname(2)` on Linux; on Windows the computer name, the
//! version `RtlGetVersion` reports, which unlike `GetVersionEx` is not
//! shimmed to an older one, and the build's architecture).

#[cfg(unix)]
fn text(s: &std::ffi::CStr) -> Option<String> {
    let s = s.to_string_lossy().trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The hostname (`uname -n`).
#[cfg(unix)]
pub fn hostname() -> Option<String> {
    text(rustix::system::uname().nodename())
}

/// The kernel's release (`uname -r`).
#[cfg(unix)]
pub fn kernel_release() -> Option<String> {
    text(rustix::system::uname().release())
}

/// `uname -m`: the machine the kernel (or an emulator) reports.
#[cfg(unix)]
pub fn machine() -> String {
    rustix::system::uname()
        .machine()
        .to_string_lossy()
        .into_owned()
}

/// The computer's name (`COMPUTERNAME`, which Windows sets for every process).
#[cfg(windows)]
pub fn hostname() -> Option<String> {
    std::env::var("COMPUTERNAME")
        .ok()
        .filter(|n| !n.trim().is_empty())
}

/// Windows's version and build (`Windows 10.0 build 19045`).
#[cfg(windows)]
pub fn kernel_release() -> Option<String> {
    use windows_sys::Win32::System::SystemInformation::OSVERSIONINFOW;
    // SAFETY: plain data; its size field set as RtlGetVersion requires.
    let mut v: OSVERSIONINFOW = unsafe { std::mem::zeroed() };
    v.dwOSVersionInfoSize = std::mem::size_of::<OSVERSIONINFOW>() as u32;
    // SAFETY: a valid, sized OSVERSIONINFOW to fill.
    let status = unsafe { windows_sys::Wdk::System::SystemServices::RtlGetVersion(&mut v) };
    (status == 0).then(|| {
        format!(
            "Windows {}.{} build {}",
            v.dwMajorVersion, v.dwMinorVersion, v.dwBuildNumber
        )
    })
}

/// The architecture candor was built for (Windows on ARM runs x86_64
/// builds emulated: then this names the build, not the machine).
#[cfg(windows)]
pub fn machine() -> String {
    std::env::consts::ARCH.to_string()
}
