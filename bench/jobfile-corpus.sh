#!/bin/sh
# Counts of a corpus of fio job files (issue 20): which ones the installed
# fio accepts (fio --parse-only), and of those, which ones candor accepts
# (candor disk --job F --parse-only) and, for each refusal, candor's one
# line. Whether a refusal's reason is true is judged by reading those lines
# (BENCHMARKS.md keeps the judgement next to the counts).
#
#   bench/jobfile-corpus.sh DIR [CANDOR]
#     DIR     a directory of *.fio files, e.g. fio's examples/
#             (git archive of github.com/axboe/fio; never committed here)
#     CANDOR  the candor binary (default: target/debug/candor)
# Prints one line per file (fio:ok|no candor:ok|no reason), then the counts,
# then how many of the files both accept candor reads otherwise than fio.
set -u
dir=${1:?usage: bench/jobfile-corpus.sh DIR [CANDOR]}
bin=$(realpath "${2:-target/debug/candor}")
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "$dir")
scratch=$(mktemp -d /var/tmp/candor-corpus.XXXXXX)
trap 'rm -rf "$scratch"' EXIT INT TERM
total=0 fio_ok=0 both=0 refused=0 fio_only_no=0
cd "$dir" || exit 2
for f in *.fio; do
    total=$((total + 1))
    if fio --parse-only "$f" >/dev/null 2>&1; then fio=ok; else fio=no; fi
    # Jobs without a directory put their files in --dir; parse-only creates nothing.
    why=$(CANDOR_NO_HISTORY=1 "$bin" disk --job "$f" --parse-only --dir "$scratch" 2>&1 >/dev/null)
    if [ $? -eq 0 ]; then candor=ok why=; else candor=no; why=$(printf '%s' "$why" | head -n 1); fi
    if [ $fio = ok ]; then
        fio_ok=$((fio_ok + 1))
        if [ $candor = ok ]; then both=$((both + 1)); else refused=$((refused + 1)); fi
    else
        fio_only_no=$((fio_only_no + 1))
    fi
    printf '%s\tfio:%s\tcandor:%s\t%s\n' "$f" "$fio" "$candor" "$why"
done
printf '\nfiles %d; fio accepts %d (refuses %d); of those candor accepts %d, refuses %d\n' \
    "$total" "$fio_ok" "$fio_only_no" "$both" "$refused"
# Accepted but read differently: each file both accept, read by candor's
# parser as `fio --showcmd` and `fio --debug=parse` read it (an ignored test
# of tests/jobfile.rs, given the corpus; its CORPUS| line has the count).
cd "$repo" || exit 2
CANDOR_JOBFILE_CORPUS=$corpus cargo test -q --test quiet jobfile::a_corpus_reads_as_fio_reads_it -- --ignored --nocapture 2>&1 |
    grep -E '^CORPUS|panicked|test result'
