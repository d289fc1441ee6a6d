//! Records the compiler that built candor (`rustc --version --verbose`'s
//! release and LLVM version) as CANDOR_RUSTC, for the UnixBench tests whose
//! figure is the compiler's as much as the CPU's (Dhrystone, Whetstone).

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let verbose = std::process::Command::new(rustc)
        .args(["--version", "--verbose"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let first = verbose.lines().next().unwrap_or("rustc (version unknown)");
    let llvm = verbose
        .lines()
        .find_map(|l| l.strip_prefix("LLVM version: "))
        .map(|v| format!(", LLVM {v}"))
        .unwrap_or_default();
    println!("cargo:rustc-env=CANDOR_RUSTC={first}{llvm}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-changed=build.rs");
}
