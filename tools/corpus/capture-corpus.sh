#!/usr/bin/env bash
# Regenerates the validator regression corpus (tests/corpus/): runs each case of
# tools/corpus/cases.txt (Debian's arm64 Mesa under qemu-aarch64, through the shim) against a
# private ferryd with `ferry capture start --full --combined --format session`, and stores each
# context's session capture xz-compressed as tests/corpus/NAME-xCTX.ferrycap.xz. It also reports
# every submit the validator refused (ferryd's debug log): a refused submit is not captured, so
# that report is the list of false refusals to fix.
#
# usage: tools/corpus/capture-corpus.sh [--build DIR] [--cross DIR] [--out DIR] [--cases FILE]
#                                       [--keep-going] [NAME...]
#   --build DIR   native build (ferryd, ferry); default build
#   --cross DIR   aarch64 cross build (shim, e2e programs); default build-ci-a64
#   --out DIR     where the .ferrycap.xz files go; default tests/corpus
#   --cases FILE  default tools/corpus/cases.txt
#   --keep-going  store the captures of a case whose program failed or had refusals too
#   NAME...       only these cases
# Exit status: 0 when every case ran, its program exited 0 and nothing was refused; 1 otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build cross=$top/build-ci-a64 out=$top/tests/corpus cases=$top/tools/corpus/cases.txt
keep_going=0
only=()
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$(realpath "$2"); shift 2 ;;
	--cross) cross=$(realpath "$2"); shift 2 ;;
	--out) out=$(realpath "$2"); shift 2 ;;
	--cases) cases=$(realpath "$2"); shift 2 ;;
	--keep-going) keep_going=1; shift ;;
	-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "capture-corpus: unknown option $1" >&2; exit 2 ;;
	*) only+=("$1"); shift ;;
	esac
done
ferryd=$build/host/server/ferryd
ferry=$build/tools/ferry
for f in "$ferryd" "$ferry" "$cross/guest/shim/libferry-shim.so"; do
	[ -e "$f" ] || { echo "capture-corpus: $f is missing (build it first)" >&2; exit 2; }
done
command -v qemu-aarch64 >/dev/null || { echo "capture-corpus: qemu-aarch64 not found" >&2; exit 2; }
command -v xz >/dev/null || { echo "capture-corpus: xz not found" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d /tmp/ferry-corpus-XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

wanted() {
	[ ${#only[@]} -eq 0 ] && return 0
	local n
	for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}

run_case() { # name gpu env... -- program args...
	local name=$1 gpu=$2
	shift 2
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=(-E "$1"); shift; done
	shift
	local prog=()
	local a
	for a in "$@"; do prog+=("${a//@CROSS@/$cross}"); done
	if [ ! -e "${prog[0]}" ]; then
		echo "$name: skipped (${prog[0]} is missing)"
		return 0
	fi
	local d=$work/$name
	mkdir -p "$d/cap"
	local sock=$d/ferryd.sock icd
	case $gpu in
	v3d*) icd=/usr/share/vulkan/icd.d/broadcom_icd.aarch64.json ;;
	*) icd=/usr/share/vulkan/icd.d/freedreno_icd.aarch64.json ;;
	esac
	"$ferryd" --socket "$sock" --gpu "$gpu" --log-level debug --capture-dir "$d/cap" >"$d/ferryd.log" 2>&1 &
	local pid=$!
	local _
	for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
	if ! "$ferry" capture start --full --combined --format session --server "unix:$sock" >"$d/capture.log" 2>&1; then
		echo "$name: ferry capture start failed:"; cat "$d/capture.log"
		kill "$pid"; wait "$pid"
		status=1
		return 0
	fi
	XDG_RUNTIME_DIR=$d VK_ICD_FILENAMES=$icd timeout 600 qemu-aarch64 -L / \
		-E "LD_PRELOAD=$cross/guest/shim/libferry-shim.so" -E "FERRY_SOCKET=$sock" "${envs[@]}" \
		"${prog[@]}" >"$d/program.log" 2>&1
	local rc=$?
	"$ferry" capture stop --server "unix:$sock" >>"$d/capture.log" 2>&1
	kill -TERM "$pid"
	wait "$pid"
	local refused
	refused=$(grep -c 'rejected by validation' "$d/ferryd.log")
	echo "$name: program exit $rc, $refused submit(s) refused by validation"
	if [ "$refused" -gt 0 ]; then
		grep -o 'rejected by validation.*' "$d/ferryd.log" | sort | uniq -c | sed 's/^/  /'
		status=1
	fi
	if [ "$rc" -ne 0 ]; then
		tail -5 "$d/program.log" | sed 's/^/  | /'
		status=1
	fi
	if [ "$keep_going" -eq 0 ] && { [ "$rc" -ne 0 ] || [ "$refused" -gt 0 ]; }; then
		echo "  (captures not stored: --keep-going stores them)"
		return 0
	fi
	rm -f "$out/$name"-x*.ferrycap.xz
	local f ctx
	for f in "$d"/cap/*.ferrycap; do
		[ -e "$f" ] || continue
		ctx=${f##*-x}
		ctx=${ctx%.ferrycap}
		xz -9e -T1 -c "$f" >"$out/$name-x$ctx.ferrycap.xz"
		echo "  $out/$name-x$ctx.ferrycap.xz: $(stat -c %s "$out/$name-x$ctx.ferrycap.xz") bytes ($(stat -c %s "$f") raw)"
	done
}

while read -r line; do
	line=${line%%#*}
	[ -n "${line// /}" ] || continue
	# shellcheck disable=SC2086 # a case line is whitespace-separated words
	set -- $line
	wanted "$1" || continue
	run_case "$@"
done <"$cases"
exit $status
