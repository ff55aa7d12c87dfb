#!/usr/bin/env bash
# A longer fuzzing campaign: ci/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]
# Builds build-fuzz (clang: libFuzzer + ASan + UBSan) when needed, then runs each target (default:
# all of them) for SECONDS (default 600) with its seed corpus plus the corpus earlier campaigns
# kept. Everything goes to $FERRY_FUZZ_DIR (default fuzz-campaign/): TARGET/corpus (new inputs,
# kept for the next campaign) and TARGET/crashes (findings). Exits non-zero on any finding.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
secs=${1:-600}
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode host pm4 v3d capture shim)
out=${FERRY_FUZZ_DIR:-$top/fuzz-campaign}
dir=build-fuzz

if [ ! -f "$dir/build.ninja" ] && ! CC=clang CXX=clang++ meson setup "$dir" >/dev/null; then
	echo "ci/fuzz.sh: meson setup $dir failed" >&2
	exit 1
fi
ninja_targets=(tests/fuzz/fuzz_seeds)
for t in "${targets[@]}"; do
	ninja_targets+=("tests/fuzz/fuzz_$t")
done
if ! ninja -C "$dir" "${ninja_targets[@]}" >/dev/null; then
	echo "ci/fuzz.sh: building the fuzz targets failed (is $dir configured with clang?)" >&2
	exit 1
fi

failed=()
for t in "${targets[@]}"; do
	FERRY_FUZZ_SECONDS=$secs FERRY_FUZZ_KEEP=1 "$top/tests/fuzz/run_fuzz.sh" "$dir/tests/fuzz/fuzz_$t" \
		"$dir/tests/fuzz/fuzz_seeds" "$t" "$out/$t" "$top/tests/fuzz/regress/$t" || failed+=("$t")
done
echo "ci/fuzz.sh: corpora and findings in $out"
if [ ${#failed[@]} -gt 0 ]; then
	echo "ci/fuzz.sh: findings in: ${failed[*]} (see $out/<target>/crashes)" >&2
	exit 1
fi
