#!/usr/bin/env bash
# The test command: install, cross-build the arm64 guest side (shim, fake kernel, e2e programs),
# build twice (plain, and ASan+UBSan with FERRY_RING=0: no submit rings), run every test in both — the e2e suite runs Debian's arm64
# Mesa under qemu-aarch64 against each build's ferryd, and the plain build also runs the VM suite
# (Debian's 6.1 kernel under TCG in QEMU 7.2 with ferry's libvirglrenderer.so.1, tests/vm/) —
# then build the libFuzzer targets (clang) and run each for FERRY_FUZZ_SECONDS (default 60; 0 =
# only their short smoke runs), and end with one line "N passed, N failed" over all runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
"$top/ci/install-deps.sh" --e2e --vm || exit 1

status=0
build_failures=0
logs=()
run_suite() { # name builddir [meson setup options...]
	local name=$1 dir=$2; shift 2
	echo "== $name: build ($dir)"
	if ! "$top/ci/build.sh" "$dir" "$@"; then
		echo "== $name: build FAILED"
		status=1
		build_failures=$((build_failures + 1))
		return
	fi
	echo "== $name: test"
	# Sanitizer settings: abort on the first report so a finding fails the test.
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C "$dir" --print-errorlogs --num-processes 2 -t 3 || status=1
	logs+=("$dir/meson-logs/testlog.json")
}

# The guest side for arm64: only what the e2e suite runs.
e2e_opt=()
echo "== aarch64 guest side: build (build-ci-a64)"
if FERRY_NINJA_TARGETS="guest/shim/libferry-shim.so guest/shim/libferry-fakekernel.so tests/e2e/vk_buffer_ops tests/e2e/vk_image_ops tests/e2e/vk_device_lost tests/e2e/vk_fault_pipeline tests/e2e/vk_share tests/e2e/egl_surfaceless tests/e2e/vk_image_traffic tests/e2e/gl_draw_traffic" \
	"$top/ci/build.sh" build-ci-a64 --cross-file "$top/ci/cross/aarch64-linux-gnu.ini"; then
	e2e_opt=(-De2e_cross_build="$top/build-ci-a64")
else
	echo "== aarch64 guest side: build FAILED"
	status=1
	build_failures=$((build_failures + 1))
	e2e_opt=(-De2e_cross_build=) # not the arm64 binaries of an earlier run
fi

# The VM suite only in the plain build: QEMU cannot load a sanitized renderer library.
run_suite "plain" build-ci "${e2e_opt[@]}" -Dvm_tests=true
# The sanitized pass runs libferry without submit rings (FERRY_RING=0), so both paths are covered.
FERRY_RING=0 run_suite "asan+ubsan" build-ci-asan -Db_sanitize=address,undefined -Db_lundef=false "${e2e_opt[@]}"

# Fuzzing: only the fuzz targets and the seed generator are built in this directory, and only the
# fuzz suites run (each bounded run is one test; a sanitizer report or crash fails it).
fuzz_secs=${FERRY_FUZZ_SECONDS:-60}
fuzz_suites=(--suite fuzz)
[ "$fuzz_secs" != 0 ] && fuzz_suites+=(--suite fuzz-run)
echo "== fuzz: build (build-ci-fuzz)"
if CC=clang CXX=clang++ FERRY_NINJA_TARGETS="tests/fuzz/fuzz_seeds tests/fuzz/fuzz_decode tests/fuzz/fuzz_host tests/fuzz/fuzz_pm4 tests/fuzz/fuzz_v3d tests/fuzz/fuzz_capture tests/fuzz/fuzz_shim" \
	"$top/ci/build.sh" build-ci-fuzz -Dintegration_tests=false -Dfuzz_runs=true; then
	echo "== fuzz: run (${fuzz_secs} s per target)"
	FERRY_FUZZ_SECONDS=$fuzz_secs meson test -C build-ci-fuzz --no-rebuild "${fuzz_suites[@]}" \
		--print-errorlogs --num-processes 2 || status=1
	logs+=("build-ci-fuzz/meson-logs/testlog.json")
else
	echo "== fuzz: build FAILED"
	status=1
	build_failures=$((build_failures + 1))
fi

python3 - "$build_failures" "${logs[@]}" <<'PY'
import json, os, sys
passed = skipped = 0
failed = int(sys.argv[1])  # a build that failed counts as one failure
failures = []
for path in sys.argv[2:]:
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                t = json.loads(line)
                r = t.get("result", "")
                if r in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif r == "SKIP":
                    skipped += 1
                else:
                    failed += 1
                    failures.append((path, t))
    except OSError:
        failed += 1
        failures.append((path, None))
# A CI viewer may keep only the end of the log: name each failure there, with its last lines.
for path, t in failures:
    where = os.path.basename(os.path.dirname(os.path.dirname(path)))
    if t is None:
        print(f"== FAILED: no test log {path}")
        continue
    print(f"== FAILED in {where}: {t.get('name')} ({t.get('result')}, rc {t.get('returncode')}, "
          f"{t.get('duration', 0):.1f} s)")
    out = (t.get("stdout") or "").rstrip().splitlines()
    err = (t.get("stderr") or "").rstrip().splitlines()
    # The lines that say what failed first (a test's CHECK or FAIL lines), then the ends.
    said = [l for l in out + err if "FAIL" in l or "failed" in l][:10]
    for l in said + ["   ..."] + out[-8:] + err[-5:]:
        print("   | " + l[:300])
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
py=$?
[ $status -eq 0 ] && [ $py -eq 0 ]
