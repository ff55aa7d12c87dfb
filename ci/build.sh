#!/usr/bin/env bash
# Configures and builds one build directory: ci/build.sh DIR [meson options...]
# Options are applied to an existing directory too (meson configure). FERRY_NINJA_TARGETS, when
# set, names the targets to build instead of everything. Quiet on success; on failure prints the
# full log.
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
elif [ $# -gt 0 ]; then
	# Only -D options can change on an existing directory (a cross file cannot).
	opts=()
	for o in "$@"; do
		if [[ $o == -D* ]]; then
			opts+=("$o")
		else
			echo "ci/build.sh: $dir exists; '$o' applies only when it is set up (remove $dir to change it)" >&2
		fi
	done
	# Regenerated first, so an option added to meson_options.txt since the directory was set
	# up is known to meson configure.
	if [ ${#opts[@]} -gt 0 ] && ! { ninja -C "$dir" build.ninja && meson configure "$dir" "${opts[@]}"; } >"$log" 2>&1; then
		cat "$log" >&2
		exit 1
	fi
fi
# shellcheck disable=SC2086 # a list of target names
if ! ninja -C "$dir" ${FERRY_NINJA_TARGETS:-} >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
