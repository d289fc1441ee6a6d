#!/usr/bin/env bash
# The controller's cost of `candor fleet run` on loopback: real sshd hosts
# on 127.0.0.2.. (each with its own host key, $HOME and $TMPDIR, as in
# tests/fleet.rs), then per-phase times from fleet.json.
#
#   bench/fleet.sh [SSHD] [HOSTS] [PARALLEL] [CANDOR]
#
#   SSHD      sshd instances to start (default 3)
#   HOSTS     inventory entries, spread over them (default 3; 50 to see the
#             controller's memory for a 50-host fleet)
#   PARALLEL  --parallel (default 1)
#   CANDOR    the candor to run and push (default: the static build,
#             target/x86_64-unknown-linux-gnu/release/candor)
#
# Environment: RUN_FLAGS (the battery; default a short cpu-only one),
# ROUNDS (fleet runs in a row, default 2: the first uploads the binary and
# keeps it, the later ones find it in the hosts' caches).
#
# Prints, per round: wall time of the whole fleet run, the sum of the
# hosts' run phases, the median of each phase, and the controller's peak
# memory. Needs root (sshd), openssh-server, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
sshd_n=${1:-3}
hosts_n=${2:-3}
parallel=${3:-1}
candor=${4:-target/x86_64-unknown-linux-gnu/release/candor}
rounds=${ROUNDS:-2}
read -r -a run_flags <<< "${RUN_FLAGS:---only cpu --passes 1 --compute-runtime 100ms}"
[ -x "$candor" ] || { echo "no $candor: run contrib/build-static.sh first" >&2; exit 2; }
candor=$(realpath "$candor")

lab=$(mktemp -d /var/tmp/candor-bench-fleet.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$lab"
}
trap cleanup EXIT
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$lab/client"
cp "$lab/client.pub" "$lab/authorized_keys"
printf 'Host *\n  UserKnownHostsFile %s/known_hosts\n  IdentitiesOnly yes\n  IdentityAgent none\n  IdentityFile %s/client\n  User root\n' \
  "$lab" "$lab" > "$lab/ssh_config"
ports=()
for i in $(seq 1 "$sshd_n"); do
  addr=127.0.0.$((i + 1))
  port=$(python3 -c "import socket; s=socket.socket(); s.bind(('$addr',0)); print(s.getsockname()[1])")
  r="$lab/host$i"
  mkdir -p "$r/home" "$r/tmp"
  ssh-keygen -q -t ed25519 -N '' -f "$r/host_key"
  cat > "$r/sshd_config" <<EOF
ListenAddress $addr:$port
HostKey $r/host_key
PidFile none
AuthorizedKeysFile $lab/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
SetEnv HOME=$r/home TMPDIR=$r/tmp
LogLevel ERROR
MaxStartups 200
MaxSessions 200
EOF
  /usr/sbin/sshd -D -e -f "$r/sshd_config" 2>>"$lab/sshd.log" &
  pids+=($!)
  ports+=("$addr:$port")
done
sleep 0.5
{
  echo "[bench]"
  for j in $(seq 1 "$hosts_n"); do
    hp=${ports[$(( (j - 1) % sshd_n ))]}
    echo "h$j ansible_host=${hp%:*} ansible_port=${hp#*:}"
  done
} > "$lab/hosts.ini"

echo "candor: $candor ($(stat -c %s "$candor") bytes), $sshd_n sshd, $hosts_n hosts, --parallel $parallel, run flags: ${run_flags[*]}"
for round in $(seq 1 "$rounds"); do
  out="$lab/round$round"
  start=$(date +%s.%N)
  "$candor" fleet run -q -i "$lab/hosts.ini" -o "$out" -F "$lab/ssh_config" --parallel "$parallel" \
    --keep-binary -- "${run_flags[@]}" > /dev/null || echo "round $round: exit $?"
  end=$(date +%s.%N)
  jq -r --arg wall "$(echo "$end - $start" | bc)" --arg round "$round" '
    def med: sort | if length == 0 then null elif length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end;
    def ms: if . == null then "-" else (. / 1e6 * 100 | round / 100 | tostring) + " ms" end;
    def phase(p): [.hosts[] | .phases[] | select(.phase == p) | .duration_ns] | med | ms;
    "round \($round): wall \($wall) s, hosts ok \([.hosts[] | select(.status == "ok")] | length)/\(.hosts | length), sum of run phases \(([.hosts[] | .phases[] | select(.phase == "run") | .duration_ns] | add) / 1e9 * 1000 | round / 1000) s, upload \([.hosts[] | .upload.how] | group_by(.) | map("\(.[0]) x\(length)") | join(", "))",
    "  median per host: connect \(phase("connect")), clock \(phase("clock")), upload \(phase("upload")), run \(phase("run")), fetch \(phase("fetch")), cleanup \(phase("cleanup"))",
    "  controller peak RSS \(.controller.max_rss_bytes / 1048576 * 10 | round / 10) MiB, largest ssh child \(.controller.ssh_max_rss_bytes / 1048576 * 10 | round / 10) MiB"
  ' "$out/fleet.json"
done
