#!/usr/bin/env bash
# Installs the Debian 12 packages ferry builds and tests with. Idempotent: skips apt when all
# are present, so repeated runs (and CI on a warm machine) cost nothing.
#   ci/install-deps.sh          what the build and the native tests need
#   ci/install-deps.sh --e2e    also the arm64 side of the end-to-end tests: Debian's arm64 Mesa
#                               (Turnip, freedreno, v3dv, v3d), vulkaninfo, qemu-user and the
#                               aarch64 cross compilers (adds the arm64 architecture to dpkg),
#                               and arm64 GStreamer (gst-launch-1.0, videotestsrc, vulkanupload)
#   ci/install-deps.sh --vm     also the VM tests (tests/vm/): QEMU 7.2 with its GTK/SDL display,
#                               Xvfb and Mesa's llvmpipe for its GL, busybox for the initramfs,
#                               depmod; and apt's package lists, which the test fetches Debian's
#                               6.1 kernel with (apt-get download)
# Options combine: ci/install-deps.sh --e2e --vm. The GStreamer and VM packages come without
# what they recommend.
set -euo pipefail

# libglib2.0-dev: the VMM glue completes fences on QEMU's GLib main context.
# clang + libclang-rt-14-dev (libFuzzer's runtime, only recommended by clang) build the fuzz
# targets; llvm brings llvm-symbolizer for readable sanitizer reports.
# haproxy and iproute2 (ip netns, veth): the farm test runs three ferryds in network namespaces
# behind HAProxy (contrib/haproxy/ferry-farm.cfg, docs/farm.md).
pkgs=(meson ninja-build gcc g++ pkg-config flatbuffers-compiler libflatbuffers-dev libdrm-dev
      python3 procps zlib1g-dev libzstd-dev clang libclang-rt-14-dev llvm libglib2.0-dev libgnutls28-dev gnutls-bin
      python3-prometheus-client systemd haproxy iproute2)
e2e_pkgs=(qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
          mesa-vulkan-drivers:arm64 libegl-mesa0:arm64 libgl1-mesa-dri:arm64 vulkan-tools:arm64
          libvulkan-dev:arm64 libegl-dev:arm64 libgles-dev:arm64 libdrm-dev:arm64 libgnutls28-dev:arm64
          libflatbuffers-dev:arm64 libzstd-dev:arm64)
# The GStreamer e2e cases need gst-launch-1.0, videotestsrc (base) and the Vulkan elements (bad);
# their recommends (codecs, more plugin sets) are not needed, so these come without them.
# ffmpeg's Vulkan filters (hwupload / hwdownload) and weston 10 (headless, GL) likewise.
gst_pkgs=(gstreamer1.0-tools:arm64 gstreamer1.0-plugins-base:arm64 gstreamer1.0-plugins-bad:arm64
          ffmpeg:arm64 weston:arm64)

# qemu-system-gui holds hw-display-virtio-gpu-gl.so and the GTK display; libgl1-mesa-dri the
# llvmpipe GL the display runs on under Xvfb (only recommended by the others).
# libvirt 9.0 for the libvirt test, without libvirt-daemon-system (it pulls in systemd): the test
# starts virtlogd and libvirtd itself.
vm_pkgs=(qemu-system-x86 qemu-system-arm qemu-system-gui xvfb libgl1-mesa-dri busybox-static kmod
         libvirt-daemon libvirt-clients libvirt-daemon-driver-qemu)

e2e=0
vm=0
for opt in "$@"; do
	case $opt in
	--e2e) e2e=1 ;;
	--vm) vm=1 ;;
	*) echo "usage: ci/install-deps.sh [--e2e] [--vm]" >&2; exit 2 ;;
	esac
done

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "ferry: missing packages: $* (run as root, or: sudo apt-get install $*)" >&2
		exit 1
	fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
missing_gst=()
recommends=(--no-install-recommends)
if ((e2e)); then
	for p in "${e2e_pkgs[@]}"; do
		installed "$p" || missing+=("$p")
	done
	for p in "${gst_pkgs[@]}"; do
		installed "$p" || missing_gst+=("$p")
	done
	# Mesa's arm64 drivers are installed the way a user would (with what they recommend).
	recommends=()
fi
missing_vm=()
if ((vm)); then
	for p in "${vm_pkgs[@]}"; do
		installed "$p" || missing_vm+=("$p")
	done
fi

if ((${#missing[@]} + ${#missing_gst[@]} + ${#missing_vm[@]})); then
	need_root "${missing[@]}" "${missing_gst[@]}" "${missing_vm[@]}"
	echo "ferry: installing ${missing[*]} ${missing_gst[*]} ${missing_vm[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ((e2e)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	apt-get update -qq
	if ((${#missing[@]})); then
		apt-get install -y -qq "${recommends[@]}" "${missing[@]}" >/dev/null
	fi
	if ((${#missing_gst[@]} + ${#missing_vm[@]})); then
		apt-get install -y -qq --no-install-recommends "${missing_gst[@]}" "${missing_vm[@]}" >/dev/null
	fi
fi

# The VM test picks the newest linux-image-6.1.0-NN-amd64 apt knows of: without package lists
# (a fresh container) it would find none.
if ((vm)) && ! apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' 2>/dev/null | grep -q .; then
	need_root "(apt's package lists)"
	apt-get update -qq
fi
