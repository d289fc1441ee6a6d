#!/usr/bin/env bash
# The history at scale: 10,000 Runs made from the real fixture Runs
# (tests/fixtures/runs: a battery, a sweep, a disk job, the compute groups,
# fio imports) with varied hosts, dates and figures, added to a fresh
# database. Measures:
#   - adding: all 10,000 in one `history add` (per Run: wall time / 10,000),
#     and 100 more one per process, as `candor run` adds its Run;
#   - the database's size per Run, and the stored JSON's (zstd) per battery;
#   - `history show` and `history trend` latency at that size (median of 20);
#   - two processes adding 1,000 Runs each at once on a new database, in one
#     call each and in 1,000 calls each: none may be lost.
#
# Hosts: 40 ordinary hosts (about 225 Runs each, 30 % of them batteries)
# and one long-lived host with a battery every day for 1,000 days, so that
# a trend has 1,000+ points. Figures: a host factor (x0.3 to x3 for disk,
# x0.5 to x2 for compute), +-5 % per Run, and a drop to 60 % on one host
# from its 150th Run on (drift findings fire as they would in life).
#
# Usage: bench/history.sh                 (WORK=/var/tmp/candor-history-bench)
#        CANDOR=target/release/candor N=2000 bench/history.sh   (a smaller run)
# Needs: a release build of candor (cargo build --release), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export CANDOR="${CANDOR:-target/release/candor}"
export WORK="${WORK:-/var/tmp/candor-history-bench}"
export N="${N:-10000}"
for tool in "$CANDOR" python3; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "$tool" ] || {
        echo "history.sh: '$tool' not found (build with 'cargo build --release')" >&2
        exit 2
    }
done
exec python3 - <<'PY'
import glob, json, os, random, resource, shutil, sqlite3, statistics, subprocess, sys, threading, time

CANDOR, WORK, N = os.path.abspath(os.environ["CANDOR"]), os.environ["WORK"], int(os.environ["N"])
LONG = N // 10
random.seed(20261201)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK + "/runs")
env = dict(os.environ, CANDOR_NO_HISTORY="1")

fixtures = {os.path.basename(p)[:-5]: json.load(open(p)) for p in sorted(glob.glob("tests/fixtures/runs/*.json"))}
others = [k for k in fixtures if k != "battery"]

def stamp(day, second):
    t = 1704067200 + day * 86400 + second  # from 2024-01-01
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

def variant(base, host, day, second, disk, compute):
    r = json.loads(json.dumps(base))
    r["label"] = host
    r["host"]["hostname"] = host
    r["started_at"] = stamp(day, second)
    r["finished_at"] = stamp(day, second + 600)
    for m in r["measurements"]:
        if m["kind"] == "disk":
            for d in ("read", "write"):
                if m.get(d):
                    for k in ("iops", "bytes_per_sec"):
                        m[d][k] *= disk * random.uniform(0.95, 1.05)
        else:
            for k in ("events_per_sec", "bytes_per_sec", "ops_per_sec"):
                if m.get(k) is not None:
                    m[k] *= compute * random.uniform(0.95, 1.05)
    return r

def save(i, run):
    path = f"{WORK}/runs/{i:05d}.json"
    with open(path, "w") as f:
        json.dump(run, f, indent=2)
    return path

print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
t0 = time.time()
files, kinds = [], {}
hosts = [(f"web-{h:03d}", random.uniform(0.3, 3.0), random.uniform(0.5, 2.0)) for h in range(40)]
for i in range(N - LONG):
    host, dfac, cfac = hosts[i % len(hosts)]
    n = i // len(hosts)
    kind = "battery" if random.random() < 0.3 else random.choice(others)
    slow = 0.6 if host == "web-007" and n >= 150 else 1.0
    files.append(save(i, variant(fixtures[kind], host, n * 3, random.randrange(86400), dfac * slow, cfac)))
    kinds[kind] = kinds.get(kind, 0) + 1
for d in range(LONG):
    files.append(save(N - LONG + d, variant(fixtures["battery"], "long-lived", d, 3600, 1.0, 1.0)))
kinds["battery"] += LONG
json_bytes = sum(os.path.getsize(f) for f in files)
print(f"generated {N} Runs ({json_bytes / 1e6:.0f} MB of JSON; batteries {kinds['battery']}) in {time.time() - t0:.0f} s", flush=True)

def run(args, **kw):
    t = time.perf_counter()
    p = subprocess.run([CANDOR] + args, capture_output=True, text=True, env=env, **kw)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"candor {' '.join(args[:3])}... exited {p.returncode}: {p.stderr.strip()}")
    return dt, p.stdout

def runs_in(db):
    c = sqlite3.connect(db)
    n = c.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    c.close()
    return n

db = WORK + "/history.db"
dt, out = run(["history", "add", "--db", db] + files)
print(out.splitlines()[0])
drift = out.splitlines()[1:]
results = [("add 10,000 Runs in one `history add` (drift of each printed)".replace("10,000", f"{N:,}"),
            f"{dt:.1f} s, {dt / N * 1000:.2f} ms per Run ({len(drift)} drift findings fired)")]
# Where drift fired: the long-lived host (one fixture, +-5 % per pass, no
# change), web-007 (its disk at 60 % from its 150th Run), the other hosts
# (Runs from different fixture Runs of the same workloads).
def runs_with(prefix, word):
    return len({l.split("): ")[0] for l in drift if l.startswith(prefix) and f"): {word}:" in l})
results.append(("drift on the long-lived host (1 fixture Run varied +-5 % per pass, no change)",
                f"{runs_with('long-lived ', 'regressed')} Runs with regressed, {runs_with('long-lived ', 'improved')} with improved, of {LONG:,}"))
results.append(("drift on web-007 (disk at 60 % from its 150th Run on)",
                f"{runs_with('web-007 ', 'regressed')} Runs with regressed, {runs_with('web-007 ', 'improved')} with improved"))
others = [l for l in drift if not l.startswith(("long-lived ", "web-007 "))]
results.append(("drift on the 39 other hosts (Runs drawn from the 17 fixtures)",
                f"{len({l.split('): ')[0] for l in others})} Runs with a finding ({sum('): regressed:' in l for l in others)} regressed, {sum('): improved:' in l for l in others)} improved)"))
with open(WORK + "/drift.txt", "w") as f:
    f.write("\n".join(drift) + "\n")

extra = [save(100000 + d, variant(fixtures["battery"], "long-lived", LONG + d, 3600, 1.0, 1.0)) for d in range(100)]
single, cpu = [], []
for f in extra:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    single.append(run(["history", "add", "--db", db, f])[0] * 1000)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
single.sort()
results.append((f"add one battery Run per process (100 calls, {LONG:,}+ earlier Runs of its host; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)",
                f"wall: median {statistics.median(single):.1f} ms, p90 {single[89]:.1f} ms, max {single[-1]:.1f} ms; CPU (user + sys): median {statistics.median(cpu):.1f} ms"))

c = sqlite3.connect(db)
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
total = c.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
zb, jb = c.execute("SELECT SUM(LENGTH(json_zstd)), SUM(json_bytes) FROM runs WHERE host_id = (SELECT id FROM hosts WHERE name = 'long-lived')").fetchone()
nb = c.execute("SELECT COUNT(*) FROM runs WHERE host_id = (SELECT id FROM hosts WHERE name = 'long-lived')").fetchone()[0]
figs = c.execute("SELECT COUNT(*) FROM figures").fetchone()[0]
c.close()
size = os.path.getsize(db)
results.append(("database size", f"{size / 1e6:.0f} MB for {total:,} Runs: {size / total / 1e3:.1f} KB per Run ({figs:,} figure rows; Run files {json_bytes / N / 1e3:.1f} KB per Run on average)"))
results.append(("stored JSON of one battery Run", f"{jb / nb / 1e3:.0f} KB as written, {zb / nb / 1e3:.1f} KB zstd ({jb / zb:.1f}x)"))

def median_ms(args, k=20):
    ts = sorted(run(args)[0] * 1000 for _ in range(k))
    return f"median {statistics.median(ts):.1f} ms (min {ts[0]:.1f}, max {ts[-1]:.1f})"

results.append((f"`history show long-lived` ({nb:,} Runs)", median_ms(["history", "show", "long-lived", "--db", db])))
results.append(("`history show web-007`", median_ms(["history", "show", "web-007", "--db", db])))
results.append((f"`history trend long-lived --test \"RND4K Q32T1 read\"` ({nb:,} points, text)",
                median_ms(["history", "trend", "long-lived", "--test", "RND4K Q32T1 read", "--db", db])))
results.append(("the same trend as `--format svg`", median_ms(["history", "trend", "long-lived", "--test", "RND4K Q32T1 read", "--format", "svg", "--db", db])))
results.append(("`history trend web-007 --test \"cpu primes 1T\"`", median_ms(["history", "trend", "web-007", "--test", "cpu primes 1T", "--db", db])))
dt, _ = run(["history", "report", "--db", db, "-o", WORK + "/report.html"])
results.append(("`history report --format html` (41 hosts)" if N == 10000 else "`history report --format html`", f"{dt:.1f} s, {os.path.getsize(WORK + '/report.html') / 1e6:.1f} MB"))
dt, _ = run(["history", "export", "--format", "csv", "--db", db, "-o", WORK + "/export.csv"])
results.append(("`history export --format csv`", f"{dt:.1f} s, {os.path.getsize(WORK + '/export.csv') / 1e6:.0f} MB"))

# Two processes at once, on new databases: one call of 1,000 files each, then 1,000 calls each.
half = min(1000, N // 2)
halves = [files[:half], files[half:2 * half]]
for mode in ("one call each", "1,000 calls each"):
    race = f"{WORK}/race-{len(mode)}.db"
    errors = []
    def adder(part):
        try:
            if mode == "one call each":
                run(["history", "add", "--quiet", "--db", race] + part)
            else:
                for f in part:
                    run(["history", "add", "--quiet", "--db", race, f])
        except SystemExit as e:
            errors.append(str(e))
    t = time.perf_counter()
    threads = [threading.Thread(target=adder, args=(p,)) for p in halves]
    for th in threads: th.start()
    for th in threads: th.join()
    dt = time.perf_counter() - t
    n = runs_in(race)
    results.append((f"two processes adding {half:,} Runs each at once ({mode})".replace("1,000 calls", f"{half:,} calls"),
                    f"{n:,} of {2 * half:,} stored, {len(errors)} failures, {dt:.1f} s"))
    if errors or n != 2 * half:
        print("\n".join(errors), file=sys.stderr)

print()
print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
print("| measured | result |")
print("|---|---|")
for k, v in results:
    print(f"| {k} | {v} |")
PY
