#!/usr/bin/env bash
# The long fuzz run (docs/fuzzing.md "Long runs"): runs one target until it has executed at
# least EXECUTIONS inputs (default 10 million), in rounds of tools/fuzz.sh, each round starting
# from the corpus the previous ones grew, and stops at the first finding.
#
#   tools/fuzz-long.sh TARGET [EXECUTIONS]      e.g. nohup nice -n 19 tools/fuzz-long.sh fuzz-qr &
#   tools/fuzz-long.sh all [EXECUTIONS]         every target, one after the other
#   FUZZ_JOB=2 tools/fuzz-long.sh fuzz-at-session 5000000   a second process on the same corpus
#   FUZZ_ROUND=250000 tools/fuzz-long.sh fuzz-at-session    smaller rounds (a slow target: less lost
#                                                            when the run is cut between rounds)
#
# Why rounds: one process per million inputs bounds what a leak-tolerant target (fuzz-toml:
# TOMLKit frees nothing) accumulates, and leaves a line per round in the summary. Prints, per
# target, the executions, rounds, coverage (libFuzzer's cov/ft) and corpus, and appends them to
# .build-fuzz/long-runs.log.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: tools/fuzz-long.sh TARGET|all [EXECUTIONS]}
goal=${2:-10000000}
scratch=${FUZZ_SCRATCH:-.build-fuzz}

# Replays a timeout input 3 times under the same 10 s limit; true (not reproduced) when it passes.
replay() {
    local target=$1 input=$2 started
    started=$(date +%s%N)
    ASAN_OPTIONS="malloc_context_size=8:max_malloc_fill_size=0" SWIFT_BACKTRACE=enable=no \
        "$scratch/release/$target" -runs=3 -timeout=10 "$input" >/dev/null 2>&1 || return 1
    replayed_ms=$((($(date +%s%N) - started) / 1000000))
}

long_run() {
    local target=$1 total=0 rounds=0 chunk=${FUZZ_ROUND:-1000000}
    spurious=0
    # fuzz-toml leaks about 2 KB per input inside TOMLKit (Fuzz/lsan-suppressions.txt): rounds of
    # 400,000 stay under the 2 GB memory limit.
    [ "$target" = fuzz-toml ] && [ -z "${FUZZ_ROUND:-}" ] && chunk=400000
    local started
    started=$(date +%s)
    while ((total < goal)); do
        local runs=$((goal - total < chunk ? goal - total : chunk))
        local log="$scratch/logs/$target${FUZZ_JOB:+-$FUZZ_JOB}.log"
        local done_now
        if ! tools/fuzz.sh "$target" 0 -- "-runs=$runs"; then
            # libFuzzer's timeout is wall-clock time: a run at nice 19 on a loaded machine can be
            # left without CPU for longer than -timeout (it happened: 12 s for an envelope that
            # takes 0.7 ms). A timeout input is therefore replayed alone; only a timeout that
            # reproduces is a finding. Any other stop (crash, property, sanitizer, leak) is one.
            local input
            input=$(sed -n 's/.*Test unit written to \(.*\/timeout-[0-9a-f]*\)$/\1/p' "$log" | tail -1)
            if [ -z "$input" ] || ! replay "$target" "$input"; then
                echo "long run: $target${FUZZ_JOB:+ (job $FUZZ_JOB)} stopped by a finding after $total executions (see $log)" \
                    | tee -a "$scratch/long-runs.log" >&2
                return 1
            fi
            spurious=$((spurious + 1))
            mv "$input" "$input.not-reproduced"
            # The executions of the interrupted round: libFuzzer's last status line.
            done_now=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
            echo "long run: $target: timeout at ${done_now:-?} executions of a round not reproduced (the input ran" \
                "in $replayed_ms ms alone): the machine's load, not the target; continuing" \
                | tee -a "$scratch/long-runs.log" >&2
        else
            done_now=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        fi
        total=$((total + ${done_now:-0}))
        rounds=$((rounds + 1))
    done
    local cov corpus
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)
    corpus=$(ls "$scratch/corpus/$target" | wc -l)
    echo "long run: $target${FUZZ_JOB:+ (job $FUZZ_JOB)}: $total executions in $rounds rounds, $(($(date +%s) - started)) s, 0 crashes," \
        "0 sanitizer reports, 0 timeouts ($spurious not reproduced on replay); $cov; corpus $corpus files" \
        "($(date -u +%FT%TZ))" \
        | tee -a "$scratch/long-runs.log" >&2
}

if [ "$target" = all ]; then
    status=0
    for each in $(tools/fuzz.sh --list); do long_run "$each" || status=1; done
    exit "$status"
fi
long_run "$target"
