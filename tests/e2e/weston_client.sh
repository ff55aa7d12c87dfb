#!/bin/sh
# weston's [autolaunch] client for the e2e weston cases (weston-e2e.ini): Debian's arm64
# weston-simple-shm runs a few seconds against the compositor that launched it. This script runs natively; the client runs under qemu-aarch64, without the
# ferry library weston was started with (it draws with wl_shm only).
unset LD_PRELOAD
timeout -s INT "${FERRY_E2E_CLIENT_SECS:-6}" qemu-aarch64 -L / /usr/bin/weston-simple-shm
status=$?
# 124: stopped by the timeout's SIGINT, after which weston-simple-shm exits normally.
[ "$status" -eq 0 ] || [ "$status" -eq 124 ]
