#!/usr/bin/env bash
# Configures (once) and builds one build directory: ci/build.sh DIR [meson options...]
# Quiet on success; on failure prints the full log.
set -uo pipefail
dir=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$dir/build.ninja" ]; then
	if ! meson setup "$dir" "$@" >"$log" 2>&1; then
		cat "$log" >&2
		exit 1
	fi
fi
if ! ninja -C "$dir" >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
