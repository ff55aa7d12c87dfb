#!/usr/bin/env bash
# Runs one libFuzzer target with its seed corpus for a bounded time and fails on any finding:
#   run_fuzz.sh FUZZER SEEDGEN TARGET WORKDIR [REGRESS_DIR]
# WORKDIR gets seeds/ (made by SEEDGEN), corpus/ (what the run adds) and crashes/ (findings).
# Checked-in regression inputs (REGRESS_DIR, one file per fixed crash) are replayed first.
# FERRY_FUZZ_SECONDS: run time (default 60). FERRY_FUZZ_RUNS: a number of runs instead (smoke).
# FERRY_FUZZ_KEEP=1 keeps the corpus of an earlier run in WORKDIR (ci/fuzz.sh), else it starts
# from the seeds alone, so a CI run does not depend on what an earlier one found.
set -uo pipefail
fuzzer=$1 seedgen=$2 target=$3 work=$4 regress=${5:-}
secs=${FERRY_FUZZ_SECONDS:-60}
runs=${FERRY_FUZZ_RUNS:-}

if [ "${FERRY_FUZZ_KEEP:-0}" != 1 ]; then
	rm -rf "$work"
fi
mkdir -p "$work/corpus" "$work/crashes" || exit 1
rm -rf "$work/seeds"
"$seedgen" "$target" "$work/seeds" || { echo "run_fuzz: seed generation failed" >&2; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

opts=(-error_exitcode=1 -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 "-artifact_prefix=$work/crashes/")
regress_inputs=()
[ -n "$regress" ] && [ -d "$regress" ] && regress_inputs=("$regress"/*)
[ ${#regress_inputs[@]} -gt 0 ] && [ ! -e "${regress_inputs[0]}" ] && regress_inputs=() # an empty directory
if [ ${#regress_inputs[@]} -gt 0 ]; then
	echo "== $target: replaying ${#regress_inputs[@]} regression input(s)"
	"$fuzzer" "${opts[@]}" "${regress_inputs[@]}" || exit 1
fi

if [ -n "$runs" ]; then
	opts+=("-runs=$runs" -seed=1)
	limit=600
	echo "== $target: fuzzing ($runs runs)"
else
	opts+=("-max_total_time=$secs")
	limit=$((secs + 300))
	echo "== $target: fuzzing ($secs s)"
fi
# libFuzzer stops itself at max_total_time; the outer timeout only catches a wedged process.
timeout -k 10 "$limit" "$fuzzer" "${opts[@]}" "$work/corpus" "$work/seeds"
rc=$?
if [ $rc -ne 0 ]; then
	echo "== $target: FAILED (exit $rc); findings in $work/crashes:" >&2
	ls -l "$work/crashes" >&2
fi
exit $rc
