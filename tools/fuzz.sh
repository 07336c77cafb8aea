#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of Fuzz/ (docs/fuzzing.md).
#
#   tools/fuzz.sh TARGET [SECONDS] [-- LIBFUZZER-FLAGS]   run one target (default 60 s; 0: no time limit)
#   tools/fuzz.sh all SECONDS                              every target, one after the other
#   tools/fuzz.sh --build                                  build only
#   tools/fuzz.sh --list                                   the targets
#
# Builds into .build-fuzz/ (release, libFuzzer instrumentation and AddressSanitizer) when a source is
# newer than the binary (`stale`). Each run
# starts from the committed seeds and regression inputs (Fuzz/Corpus/TARGET; Fuzz/Corpus/fuzz-at for
# the three AT script targets) plus what earlier runs found (.build-fuzz/corpus/TARGET, kept between
# runs), with the target's dictionary. A crash,
# a sanitizer report, a leak, a timeout (10 s for one input) or an out-of-memory stops the run,
# exits non-zero and leaves the input in .build-fuzz/artifacts/TARGET/ (minimise it with
# `-minimize_crash=1 -runs=100000`, see docs/fuzzing.md). A long run, for example 10 million
# executions: tools/fuzz.sh fuzz-qr 0 -- -runs=10000000
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(
    fuzz-qr fuzz-matter fuzz-at-framer fuzz-at-classifier fuzz-at-session fuzz-at-command-line fuzz-csv fuzz-toml
    fuzz-ingest-json fuzz-tuya-envelope
)
# FUZZ_SCRATCH: another build directory (a second build beside a long run that uses .build-fuzz).
scratch=${FUZZ_SCRATCH:-.build-fuzz}

# The committed seeds and regression inputs of a target: the three AT script targets read the same
# scripts; fuzz-at-command-line reads command lines.
seeds() {
    case "$1" in
    fuzz-at-command-line) echo Fuzz/Corpus/fuzz-at-command-line ;;
    fuzz-at-*) echo Fuzz/Corpus/fuzz-at ;;
    *) echo "Fuzz/Corpus/$1" ;;
    esac
}

dictionaries() {
    case "$1" in
    fuzz-at-*) echo at ;;
    fuzz-qr | fuzz-matter) echo "qr json" ;;
    fuzz-ingest-json | fuzz-tuya-envelope) echo json ;;
    fuzz-toml) echo toml ;;
    fuzz-csv) echo "" ;;
    esac
}

build() {
    # Why release: the long runs need speed (the QR target runs ~10x faster than at -Onone),
    # and the sanitizers stay on; one build serves every target.
    #
    # Why -Xswiftc -sanitize=fuzzer,address as well: SwiftPM passes the two --sanitize options to
    # swiftc as two -sanitize= flags, in an order that changes from one build to the next, and the
    # Swift driver keeps only the last one: a build had coverage without AddressSanitizer, or
    # AddressSanitizer without coverage (libFuzzer: "no interesting inputs ... instrumented?").
    # The combined flag comes last and carries both. C and C++ (TOMLKit) get clang's flags, which
    # add up.
    (cd Fuzz && swift build -c release --scratch-path "../$scratch" --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize=fuzzer,address) >&2
    # Every module of the package must carry both instrumentations, or the runs prove nothing.
    local module object
    for module in Fuzz/Sources/* Fuzz/Support/* Fuzz/Targets/*; do
        # System libraries (a module map, no Swift of ours: CLinux, CQREncode) have no objects.
        [ -e "$module/module.modulemap" ] && continue
        module=$(basename "$module")
        # The first object file by a glob, not `ls | head -1`: with pipefail, ls dies of SIGPIPE once
        # its listing passes one write (ATKit's, 6.4 kB), and set -e ends the script with status 141.
        object=
        for candidate in "$scratch/release/${module//-/_}.build/"*.o; do
            [ -e "$candidate" ] && object=$candidate
            break
        done
        # grep -c, not -q: with pipefail, -q's early exit fails the pipe (SIGPIPE).
        if [ -z "$object" ] || [ "$(objdump -h "$object" | grep -c __sancov_cntrs)" = 0 ] \
            || [ "$(nm -u "$object" | grep -c __asan_)" = 0 ]; then
            echo "fuzz: $module is built without libFuzzer coverage or AddressSanitizer ($object)" >&2
            return 1
        fi
    done
}

# True when $1 is missing or older than a Swift source the fuzz package compiles (symlinks followed:
# the main package's files) or its manifest. Why: a run used to build only when the binary was
# missing, and a 10-million-execution run of fuzz-csv after a change to CSVReader fuzzed the
# binary from before the change.
stale() {
    [ ! -x "$1" ] && return 0
    [ -n "$(find -L Fuzz/Sources Fuzz/Support Fuzz/Targets -name '*.swift' -newer "$1" -print -quit)" ] \
        || [ Fuzz/Package.swift -nt "$1" ]
}

run() {
    local target=$1 seconds=$2
    shift 2
    local binary="$scratch/release/$target"
    if stale "$binary"; then build; fi
    local corpus="$scratch/corpus/$target" artifacts="$scratch/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    local dict="$scratch/dictionaries/$target.dict"
    mkdir -p "$(dirname "$dict")"
    : >"$dict"
    for name in $(dictionaries "$target"); do cat "Fuzz/Dictionaries/$name.dict" >>"$dict"; done
    local flags=(
        -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1
        "-artifact_prefix=$artifacts/"
    )
    [ -s "$dict" ] && flags+=("-dict=$dict")
    # TOMLKit leaks every parse (Fuzz/lsan-suppressions.txt): with leak checks on, libFuzzer scans
    # the heap after each input, 85 inputs/s instead of 2000. nbgw's reader is Swift with no
    # manual memory; the leak checks stay on for every other target.
    [ "$target" = fuzz-toml ] && flags+=(-detect_leaks=0)
    [ "$seconds" != 0 ] && flags+=("-max_total_time=$seconds")
    # FUZZ_JOB names a second concurrent run of the same target (its own log; the corpus is shared).
    local log="$scratch/logs/$target${FUZZ_JOB:+-$FUZZ_JOB}.log"
    mkdir -p "$(dirname "$log")"
    echo "fuzz: $target for ${seconds}s (log $log)" >&2
    local status=0
    # Leak checks stay on (ASan's default): a parser that leaks per input is a finding too. The only
    # suppressions are TOMLKit's own allocations (Fuzz/lsan-suppressions.txt says why). The Swift
    # runtime's backtracer is off: libFuzzer prints the stack, and minimising reruns crashes often.
    # ASan keeps 8 frames per allocation stack (not 30) and does not fill new allocations: both
    # were a third of the AT session target's time (perf), and neither changes what is detected.
    ASAN_OPTIONS="malloc_context_size=8:max_malloc_fill_size=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt:print_suppressions=0" SWIFT_BACKTRACE=enable=no \
        "$binary" "${flags[@]}" "$@" "$corpus" "$(seeds "$target")" >"$log" 2>&1 || status=$?
    local runs cov
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz: $target: exit $status, ${runs:-?} executions, ${cov:-no coverage line}, corpus $(ls "$corpus" | wc -l) files" >&2
    if [ "$status" != 0 ]; then
        grep -E "ERROR|fuzz property broken|Test unit written|timeout|out-of-memory|SUMMARY" "$log" | head -20 >&2
    fi
    return "$status"
}

case "${1:-}" in
--list) printf '%s\n' "${targets[@]}" ;;
--build) build ;;
all)
    seconds=${2:-20}
    build
    failed=0
    for target in "${targets[@]}"; do run "$target" "$seconds" || failed=1; done
    exit "$failed"
    ;;
"" | -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' ;;
*)
    target=$1
    seconds=${2:-60}
    shift $(($# >= 2 ? 2 : 1))
    [ "${1:-}" = "--" ] && shift
    # A loop, not printf | grep -q: with pipefail, grep's early exit can fail the pipe (SIGPIPE).
    known=0
    for each in "${targets[@]}"; do [ "$each" = "$target" ] && known=1; done
    [ "$known" = 1 ] || { echo "fuzz: unknown target $target (--list)" >&2; exit 2; }
    run "$target" "$seconds" "$@"
    ;;
esac
