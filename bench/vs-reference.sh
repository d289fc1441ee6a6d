#!/usr/bin/env bash
# candor's compute figures side by side with the reference tools users know:
# sysbench 1.0 (cpu, memory), openssl speed, 7-Zip's `7z b`. Each comparison
# alternates the two tools (A B, then B A, ...) for PAIRS pairs, so drift
# and neighbours hit both alike, and prints medians and the median of the
# per-pair ratios (candor / reference).
#
# On a shared or contended machine the raw figures move with the CPU share
# each process got; the "per CPU-s" rows divide by the CPU time the process
# actually used (candor: its cpu.usr+sys; references: user+sys from bash's
# `time`; 7-Zip: its own Usage column), which is what decides whether the
# arithmetic is the same.
#
# Usage: bench/vs-reference.sh            (PAIRS=5 RUNTIME=5 by default)
#        PAIRS=3 RUNTIME=3 CANDOR=target/release/candor bench/vs-reference.sh
#        ONLY=cpu1,cpuN,mem,crypto,lzma bench/vs-reference.sh   (a subset)
# Needs: a release build of candor, sysbench, openssl, 7z (p7zip-full), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export CANDOR="${CANDOR:-target/release/candor}"
export PAIRS="${PAIRS:-5}"
export RUNTIME="${RUNTIME:-5}"
export ONLY="${ONLY:-cpu1,cpuN,mem,crypto,lzma}"
for tool in "$CANDOR" sysbench openssl 7z python3; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "$tool" ] || {
        echo "vs-reference: '$tool' not found (build with 'cargo build --release'; apt-get install sysbench p7zip-full)" >&2
        exit 2
    }
done
exec python3 - <<'PY'
import json, os, re, statistics, subprocess, time

CANDOR, PAIRS, RT = os.environ["CANDOR"], int(os.environ["PAIRS"]), os.environ["RUNTIME"]
ONLY = os.environ["ONLY"].split(",")
NCPU = os.cpu_count()

def timed(cmd):
    """Runs cmd; returns (stdout, wall seconds, cpu seconds of the children)."""
    t0, c0 = time.time(), os.times()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    t1, c1 = time.time(), os.times()
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    return out, t1 - t0, cpu

def candor(group, threads):
    out, _, _ = timed([CANDOR, group, "--threads", str(threads), "--runtime", RT + "s", "--format", "json"])
    run = json.loads(out)
    res = {}
    for m in run["measurements"]:
        v = m.get("events_per_sec") or m.get("bytes_per_sec") or m.get("ops_per_sec")
        cpu = m["cpu"]["usr_pct"] + m["cpu"]["sys_pct"]
        res[m["spec"]["test"]] = (v, v * 100.0 / cpu if cpu > 0 else float("nan"))
    return res, run["tool"]["libraries"]

def sysbench(args, pattern, scale=1.0):
    out, wall, cpu = timed(["sysbench"] + args + ["--time=" + RT, "run"])
    v = float(re.search(pattern, out).group(1)) * scale
    return v, v * wall / cpu

def openssl(alg, decrypt=False):
    # -elapsed: openssl speed otherwise divides by its user CPU time, not wall time.
    cmd = ["openssl", "speed", "-elapsed", "-mr", "-seconds", RT, "-bytes", "16384"] + (["-decrypt"] if decrypt else []) + ["-evp", alg]
    out, wall, cpu = timed(cmd)
    v = float(re.search(r"^\+F:\d+:[^:]+:([\d.]+)", out, re.M).group(1))
    return v, v * wall / cpu

def sevenzip():
    out, _, _ = timed(["7z", "b", "-mmt1", "-md22"])
    f = re.search(r"^Avr:\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\|\s+(\d+)\s+(\d+)", out, re.M).groups()
    c, cu, d, du = (float(x) for x in f)
    return (c * 1024, c * 1024 * 100 / cu), (d * 1024, d * 1024 * 100 / du)

rows = {}  # name -> list of (candor, reference) per pair
def add(name, a, b):
    rows.setdefault(name, []).append((a, b))

libs = {}
for i in range(PAIRS):
    order = [0, 1] if i % 2 == 0 else [1, 0]
    steps = {
        "cpu1": [lambda: candor("cpu", 1), lambda: sysbench(["cpu", "--cpu-max-prime=20000", "--threads=1"], r"events per second:\s+([\d.]+)")],
        "cpuN": [lambda: candor("cpu", NCPU), lambda: sysbench(["cpu", "--cpu-max-prime=20000", f"--threads={NCPU}"], r"events per second:\s+([\d.]+)")],
        "mem": [lambda: candor("memory", 1), lambda: (
            sysbench(["memory", "--memory-block-size=1M", "--memory-scope=local", "--memory-oper=write", "--threads=1"], r"\(([\d.]+) MiB/sec\)", 1048576),
            sysbench(["memory", "--memory-block-size=1M", "--memory-scope=local", "--memory-oper=read", "--threads=1"], r"\(([\d.]+) MiB/sec\)", 1048576),
            sysbench(["memory", "--memory-block-size=1G", "--memory-oper=write", "--threads=1"], r"\(([\d.]+) MiB/sec\)", 1048576),
        )],
        "crypto": [lambda: candor("crypto", 1), lambda: (
            openssl("aes-256-cbc"), openssl("aes-256-cbc", decrypt=True), openssl("aes-256-gcm"), openssl("sha256"))],
        "lzma": [lambda: candor("compress", 1), sevenzip],
    }
    for key, pair in steps.items():
        if key not in ONLY:
            continue
        got = [None, None]
        for which in order:
            got[which] = pair[which]()
        (c, libs), ref = got
        if key == "cpu1":
            add("primes 1 thread, events/s", c["primes"][0], ref[0])
            add("primes 1 thread, events per CPU-s", c["primes"][1], ref[1])
        elif key == "cpuN":
            add(f"primes {NCPU} threads, events/s", c["primes"][0], ref[0])
            add(f"primes {NCPU} threads, events per CPU-s", c["primes"][1], ref[1])
        elif key == "mem":
            w, r, g = ref
            add("memory 1M write (cache), B/s vs sysbench 1M", c["sysbench-memory-write"][0], w[0])
            add("memory 1M write, per CPU-s", c["sysbench-memory-write"][1], w[1])
            add("memory 1M read (cache), B/s vs sysbench 1M", c["sysbench-memory-read"][0], r[0])
            add("memory 1M read, per CPU-s", c["sysbench-memory-read"][1], r[1])
            for k in ["copy", "scale", "add", "triad"]:
                add(f"RAM stream-{k} 1 thread, B/s vs sysbench 1G write", c["stream-" + k][0], g[0])
        elif key == "crypto":
            e, d, gcm, sha = ref
            for name, test, r in [("AES-256-CBC encrypt", "aes-256-cbc-encrypt", e), ("AES-256-CBC decrypt", "aes-256-cbc-decrypt", d),
                                  ("AES-256-GCM", "aes-256-gcm", gcm), ("SHA-256", "sha-256", sha)]:
                add(f"{name} 16 KiB, B/s vs openssl speed", c[test][0], r[0])
                add(f"{name} 16 KiB, per CPU-s", c[test][1], r[1])
        else:
            comp, dec = ref
            add("LZMA compress, B/s vs 7z b -mmt1 -md22", c["lzma-compress"][0], comp[0])
            add("LZMA compress, per CPU-s (7z: /Usage)", c["lzma-compress"][1], comp[1])
            add("LZMA decompress, B/s vs 7z b -mmt1 -md22", c["lzma-decompress"][0], dec[0])
            add("LZMA decompress, per CPU-s (7z: /Usage)", c["lzma-decompress"][1], dec[1])
    print(f"pair {i + 1}/{PAIRS} done", flush=True)

def fmt(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"

sb = subprocess.run(["sysbench", "--version"], capture_output=True, text=True).stdout.strip()
ossl = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
sz = next((l for l in subprocess.run(["7z"], capture_output=True, text=True).stdout.splitlines() if l.startswith("7-Zip")), "7z")
print(f"\ncandor {CANDOR} (libraries {libs}) vs {sb}; {ossl}; {sz}")
print(f"{PAIRS} alternating pairs, {RT}s per test, {NCPU} CPUs, load average {os.getloadavg()[0]:.2f} at the end\n")
print(f"| {'comparison':<52} | {'candor (median)':>16} | {'reference (median)':>18} | {'ratio (median of pairs)':>23} | {'ratio min..max':>14} |")
print(f"|{'-' * 54}|{'-' * 18}:|{'-' * 20}:|{'-' * 25}:|{'-' * 16}:|")
for name, pairs in rows.items():
    ratios = [a / b for a, b in pairs if b]
    print(f"| {name:<52} | {fmt(statistics.median(a for a, _ in pairs)):>16} | {fmt(statistics.median(b for _, b in pairs)):>18} | "
          f"{statistics.median(ratios):>23.3f} | {min(ratios):>6.3f}..{max(ratios):<6.3f} |")
PY
