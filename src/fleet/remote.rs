//! What the controller runs on a host: short POSIX sh scripts, one per
//! step. Nothing but `sh`, `mktemp`, `cat`, `date`, `uname`, `rm` and
//! `sha256sum` (optional) is assumed on the host, so a fresh minimal
//! server works; candor itself arrives as the uploaded binary.
//!
//! ssh hands its command to the user's login shell as one string, so each
//! step is sent as `sh -c '<script>' candor-fleet ARG...`: the script is a
//! constant of this file and every value (paths, hashes, flags) travels as
//! a quoted positional argument, never pasted into the script. The scripts
//! print machine-readable lines (`candor-fleet-<word> ...`) on stdout and
//! their errors on stderr prefixed `candor-fleet: `.

/// The cache directory on the host, below `$HOME`.
pub const CACHE_DIR: &str = ".cache/candor/bin";

/// `'text'` for sh, with embedded quotes escaped.
pub fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The remote command line for a script and its arguments.
pub fn command(script: &str, args: &[String]) -> String {
    let mut cmd = format!("sh -c {} candor-fleet", quote(script));
    for a in args {
        cmd.push(' ');
        cmd.push_str(&quote(a));
    }
    cmd
}

/// The control session: announces itself, the system and `$HOME`, then
/// answers every line it reads with the host's clock (seconds.nanoseconds),
/// until the controller closes it.
pub const CONTROL: &str = r#"echo candor-fleet-ready
uname -sm
printf '%s\n' "$HOME"
while read -r x; do date +%s.%N; done"#;

/// Runs the rest of a script as the become user when `$u` is set.
const AS: &str = r#"as() { if [ -n "$u" ]; then sudo -n -u "$u" -- "$@"; else "$@"; fi; }"#;

/// Is the binary with hash `$1` in the cache? Prints
/// `candor-fleet-cached sha256 PATH`, `candor-fleet-cached size BYTES PATH`
/// (no sha256sum on the host: the controller compares the size), or
/// `candor-fleet-absent PATH`.
pub const CHECK_CACHE: &str = r#"f="$HOME/.cache/candor/bin/candor-$1"
if [ -f "$f" ] && [ -x "$f" ]; then
  if command -v sha256sum >/dev/null 2>&1; then
    s=$(sha256sum "$f") && [ "${s%% *}" = "$1" ] && { echo "candor-fleet-cached sha256 $f"; exit 0; }
  else
    echo "candor-fleet-cached size $(wc -c < "$f") $f"; exit 0
  fi
fi
echo "candor-fleet-absent $f""#;

/// Receives the binary on stdin (`$1` its sha256, `$2` its size) into the
/// cache: the directories it creates are printed (`candor-fleet-created
/// DIR`) so that cleanup removes exactly those, the bytes go to a private
/// part file that is checked (size, and sha256 where the host has
/// sha256sum) before it is renamed into place.
pub const UPLOAD: &str = r#"d="$HOME/.cache/candor/bin"
for p in "$HOME/.cache" "$HOME/.cache/candor" "$d"; do
  if [ ! -d "$p" ]; then mkdir -m 755 "$p" || exit 90; echo "candor-fleet-created $p"; fi
done
t="$d/.candor-$1.$$.part"
trap 'rm -f "$t"' EXIT
(umask 077; cat > "$t") || { echo "candor-fleet: cannot write the binary to $d" >&2; exit 91; }
n=$(wc -c < "$t")
[ "$n" -eq "$2" ] || { echo "candor-fleet: the upload was cut short ($n of $2 bytes)" >&2; exit 92; }
if command -v sha256sum >/dev/null 2>&1; then
  s=$(sha256sum "$t"); [ "${s%% *}" = "$1" ] || { echo "candor-fleet: the uploaded binary's sha256 does not match" >&2; exit 93; }
  echo "candor-fleet-verified sha256"
else
  echo "candor-fleet-verified size"
fi
chmod 755 "$t" && mv -f "$t" "$d/candor-$1" && echo "candor-fleet-uploaded $d/candor-$1""#;

/// Runs the battery: `$1` the binary, `$2` the become user (empty: none),
/// then `candor run`'s flags. A private work directory holds the Run; its
/// path is printed first, the remote candor's exit status last
/// (`candor-fleet-exit N`: ssh itself cannot tell a killed process from a
/// lost connection). candor's stdin is the ssh channel: when the
/// controller closes it, candor stops (`--fleet-agent`).
pub fn run_script() -> String {
    format!(
        r#"b=$1; u=$2; shift 2
{AS}
if [ -n "$u" ]; then base=/tmp; else base=${{TMPDIR:-/tmp}}; fi
w=$(as mktemp -d "$base/candor-fleet.XXXXXX") || {{ echo "candor-fleet: cannot create a work directory in $base" >&2; exit 94; }}
echo "candor-fleet-workdir $w"
as "$b" run -o "$w/run.json" --fleet-agent "$@" >/dev/null
echo "candor-fleet-exit $?""#
    )
}

/// Prints the Run: `$1` the work directory, `$2` the become user.
pub fn fetch_script() -> String {
    format!(
        r#"w=$1; u=$2
{AS}
case "$w" in */candor-fleet.*) ;; *) echo "candor-fleet: not a work directory: $w" >&2; exit 95;; esac
as cat -- "$w/run.json""#
    )
}

/// Stops a run: `$1` the remote candor's pid, `$2` the signal, `$3` the become user.
pub fn kill_script() -> String {
    format!(
        r#"u=$3
{AS}
as kill -s "$2" "$1" 2>/dev/null; exit 0"#
    )
}

/// Removes what this fleet run left: `$1` the become user, `$2` the work
/// directory (or empty), `$3` the pid of a candor that did not end by
/// itself (its test files are removed) or empty, `$4` its test directory,
/// `$5` the uploaded binary to remove (or empty), then the directories the
/// upload created, deepest first (removed only when empty). Prints
/// `candor-fleet-left PATH` for anything still there afterwards.
pub fn cleanup_script() -> String {
    format!(
        r#"u=$1; w=$2; pid=$3; dir=$4; bin=$5; shift 5
{AS}
case "$w" in */candor-fleet.*) as rm -rf -- "$w";; esac
if [ -n "$pid" ]; then as rm -f -- "$dir"/.candor-*-"$pid"-*.tmp; fi
if [ -n "$bin" ]; then rm -f -- "$bin"; fi
for d in "$@"; do rmdir -- "$d" 2>/dev/null; done
for x in "$w" "$bin" "$@"; do if [ -n "$x" ] && [ -e "$x" ]; then echo "candor-fleet-left $x"; fi; done
if [ -n "$pid" ]; then for f in "$dir"/.candor-*-"$pid"-*.tmp; do if [ -e "$f" ]; then echo "candor-fleet-left $f"; fi; done; fi
exit 0"#
    )
}

/// `candor fleet clean`: removes what a fleet run left on a host, as
/// fleet.json names it: `$1` the become user (or empty), then the paths.
/// Only candor's own kinds of path are touched (never a link): a work
/// directory `candor-fleet.XXXXXX` or `candor-ansible.*`, a cached binary
/// `.cache/candor/bin/candor-<sha256>`, the cache directories (when empty),
/// a test file `.candor-*.tmp`; anything else is refused. A work directory
/// that a running candor still writes its Run into is left alone. Prints
/// for each path one of `candor-fleet-removed`, `-absent` (already gone),
/// `-left` (still there), `-refused`, `-inuse PATH PID`.
pub fn clean_script() -> String {
    format!(
        r#"u=$1; shift
{AS}
inuse() {{
  for d in /proc/[0-9]*; do
    case "$(readlink "$d/exe" 2>/dev/null)" in */candor|*/candor-*) ;; *) continue;; esac
    if tr '\0' '\n' < "$d/cmdline" 2>/dev/null | grep -qxF -- "$1/run.json"; then echo "${{d#/proc/}}"; return 0; fi
  done
  return 1
}}
for p in "$@"; do
  kind=no
  case "$p" in
    */candor-fleet.*/*|*/candor-ansible.*/*) ;;
    /*/candor-fleet.??????|/*/candor-ansible.*) kind=workdir;;
    /*/.cache/candor/bin/candor-*)
      h=${{p##*/candor-}}
      case "$h" in *[!0-9a-f]*) ;; *) [ ${{#h}} -eq 64 ] && kind=file;; esac;;
    /*/.cache/candor/bin|/*/.cache/candor|/*/.cache) kind=dir;;
    /*/.candor-*.tmp) case "${{p##*/}}" in */*) ;; *) kind=file;; esac;;
  esac
  if [ "$kind" = no ] || [ -L "$p" ]; then echo "candor-fleet-refused $p"; continue; fi
  if [ ! -e "$p" ]; then echo "candor-fleet-absent $p"; continue; fi
  case "$kind" in
    workdir)
      if pid=$(inuse "$p"); then echo "candor-fleet-inuse $p $pid"; continue; fi
      as rm -rf -- "$p";;
    dir) rmdir -- "$p" 2>/dev/null;;
    file) as rm -f -- "$p";;
  esac
  if [ -e "$p" ]; then echo "candor-fleet-left $p"; else echo "candor-fleet-removed $p"; fi
done
exit 0"#
    )
}

/// The values of the lines that start with `candor-fleet-<word> `.
pub fn values<'a>(stdout: &'a str, word: &str) -> Vec<&'a str> {
    let prefix = format!("candor-fleet-{word} ");
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_sh() {
        for text in ["plain", "a b", "it's", "$(rm -rf /)", "", "--x=`y`", "ünï"] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf '%s' {}", quote(text)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), text);
        }
    }

    #[test]
    fn scripts_are_valid_sh_and_get_values_as_arguments() {
        for s in [
            CONTROL.to_string(),
            CHECK_CACHE.to_string(),
            UPLOAD.to_string(),
            run_script(),
            fetch_script(),
            kill_script(),
            cleanup_script(),
            clean_script(),
        ] {
            let st = std::process::Command::new("sh")
                .args(["-n", "-c", &s])
                .status()
                .unwrap();
            assert!(st.success(), "{s}");
        }
        let cmd = command("printf '%s|' \"$@\"", &["a b".into(), "it's".into()]);
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a b|it's|");
    }

    /// `candor fleet clean`'s script on real files: candor's own kinds of
    /// path go (a cache directory only when empty), anything else, a link
    /// or a work directory a running candor writes into stays (Unix: the
    /// script is the remote host's POSIX sh, the planted link a symlink).
    #[cfg(unix)]
    #[test]
    fn clean_removes_only_candor_s_own_paths() {
        let dir = tempfile::tempdir().unwrap();
        let d = |p: &str| dir.path().join(p);
        let s = |p: &std::path::Path| p.display().to_string();
        std::fs::create_dir_all(d("home/.cache/candor/bin")).unwrap();
        let sha = "ab".repeat(32);
        std::fs::write(d(&format!("home/.cache/candor/bin/candor-{sha}")), "x").unwrap();
        std::fs::write(d("home/.cache/candor/bin/candor-notahash"), "x").unwrap();
        std::fs::create_dir(d("candor-fleet.Ab12Cd")).unwrap();
        std::fs::write(d("candor-fleet.Ab12Cd/run.json"), "{}").unwrap();
        std::fs::create_dir(d("candor-ansible.k2j3h4")).unwrap();
        std::fs::write(d(".candor-main-4242-77-0.tmp"), "x").unwrap();
        std::fs::write(d("precious"), "x").unwrap();
        std::os::unix::fs::symlink(d("precious"), d("candor-fleet.LnLnLn")).unwrap();
        // A work directory a running "candor" writes into (a copy of sh
        // named candor, its command line naming the Run there; the `:`
        // keeps sh from exec'ing sleep in its place).
        std::fs::create_dir(d("candor-fleet.Busy00")).unwrap();
        let fake = d("candor");
        std::fs::copy("/bin/sh", &fake).unwrap();
        let mut busy = std::process::Command::new(&fake)
            .args(["-c", "sleep 30; :", "candor"])
            .arg(s(&d("candor-fleet.Busy00/run.json")))
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let paths = [
            s(&d(&format!("home/.cache/candor/bin/candor-{sha}"))),
            s(&d("home/.cache/candor/bin")),
            s(&d("home/.cache/candor")),
            s(&d("home/.cache/candor/bin/candor-notahash")),
            s(&d("candor-fleet.Ab12Cd")),
            s(&d("candor-ansible.k2j3h4")),
            s(&d(".candor-main-4242-77-0.tmp")),
            s(&d("precious")),
            s(&d("candor-fleet.LnLnLn")),
            s(&d("candor-fleet.Busy00")),
            s(&d("candor-fleet.Gone00")),
            "relative/candor-fleet.abcdef".to_string(),
        ];
        let mut args = vec![String::new()];
        args.extend(paths.iter().cloned());
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command(&clean_script(), &args))
            .output()
            .unwrap();
        let _ = busy.kill();
        let _ = busy.wait();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let said = |word: &str| {
            values(&text, word)
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
        };
        let at = |i: &[usize]| i.iter().map(|&i| paths[i].clone()).collect::<Vec<_>>();
        assert_eq!(said("removed"), at(&[0, 4, 5, 6]), "{text}");
        // The cache directories still hold the file that is not candor's.
        assert_eq!(said("left"), at(&[1, 2]), "{text}");
        assert_eq!(said("refused"), at(&[3, 7, 8, 11]), "{text}");
        assert_eq!(said("absent"), at(&[10]));
        assert_eq!(said("inuse").len(), 1, "{text}");
        assert!(said("inuse")[0].starts_with(&paths[9]), "{text}");
        assert!(d("precious").exists() && d("candor-fleet.Busy00").exists());
        assert!(d("home/.cache/candor/bin/candor-notahash").exists());
    }

    #[test]
    fn cleanup_removes_only_what_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().join("candor-fleet.abc123");
        std::fs::create_dir(&w).unwrap();
        std::fs::write(w.join("run.json"), "{}").unwrap();
        let other = dir.path().join("keep-me");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(dir.path().join(".candor-main-4242-0.tmp"), "x").unwrap();
        std::fs::write(dir.path().join(".candor-main-4243-0.tmp"), "x").unwrap();
        let s = |p: &std::path::Path| p.display().to_string();
        let args = vec![
            String::new(),
            s(&w),
            "4242".into(),
            s(dir.path()),
            String::new(),
            s(&other.join("absent")),
        ];
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command(&cleanup_script(), &args))
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(!w.exists());
        assert!(other.exists());
        assert!(!dir.path().join(".candor-main-4242-0.tmp").exists());
        assert!(dir.path().join(".candor-main-4243-0.tmp").exists());
        assert!(values(&String::from_utf8_lossy(&out.stdout), "left").is_empty());
    }
}
