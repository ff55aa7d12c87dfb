#!/bin/sh
# weston's [autolaunch] client for the e2e weston cases (weston-e2e.ini): Debian's arm64
# weston-simple-shm runs a few seconds against the compositor that launched it. This script runs natively; the client runs under qemu-aarch64, without the
# ferry library weston was started with (it draws with wl_shm only).
# Its protocol log (WAYLAND_DEBUG) shows the compositor configured its window and took its
# buffer. Under qemu-user weston's headless output sends no frame callbacks after the first
# frame (with either renderer, ferry or not), so the client waits for one until weston quits,
# and then exits: the e2e case checks the log, not the client's end.
unset LD_PRELOAD
WAYLAND_DEBUG=client exec qemu-aarch64 -L / /usr/bin/weston-simple-shm
