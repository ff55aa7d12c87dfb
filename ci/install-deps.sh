#!/usr/bin/env bash
# Installs the Debian 12 packages ferry builds and tests with. Idempotent: skips apt when all
# are present, so repeated runs (and CI on a warm machine) cost nothing.
set -euo pipefail

pkgs=(meson ninja-build gcc g++ pkg-config flatbuffers-compiler libflatbuffers-dev libdrm-dev
      python3 procps zlib1g-dev)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "ferry: missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
		exit 1
	fi
	echo "ferry: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
