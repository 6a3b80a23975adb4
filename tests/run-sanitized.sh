#!/usr/bin/env bash
# Run the tests on the sanitizer build (ASan + UBSan + LeakSanitizer, `make
# test-asan`) and fail when any sanitizer reported anything, whatever the
# tests themselves said.
#
#   tests/run-sanitized.sh                          unit tests + the integration files
#                                                   of tests/asan-files.txt (make test-asan)
#   tests/run-sanitized.sh --all                    unit tests + every integration file
#   tests/run-sanitized.sh [run-tests.sh ARGS...]   e.g. --no-unit reload
#   tests/run-sanitized.sh --unit-only              unit tests only (meson test)
#
# tests/asan-files.txt names a part of the integration suite that runs
# every feature's code (each file's reason is beside it); tests/asan-coverage.sh
# shows what the whole suite runs that this part does not.
#
# Every process of the run (unit tests, vbrd, vbrctl, pcapgen, impair)
# inherits the options below. Exit status 1 when a test failed or when any
# report exists (printed at the end), else 0.
#
# Environment: BUILD (default build-asan), SANITIZER_LOGS (report files,
# default /tmp/vbrd-sanitizers, emptied first), VBRD_TEST_PREFIX (as in
# run-tests.sh; its logs are kept while there are reports to read).
#
# Options, and why:
#   ASan   halt_on_error=1  memory is corrupt after the first error: stop there
#          detect_leaks=1   LeakSanitizer at each exit, with tests/lsan.supp
#   UBSan  halt_on_error=0  go on: one run lists every undefined behaviour
#                           (once per source location and process), and the
#                           test around it still ends; the report fails the
#                           run anyway
#          print_stacktrace=1
#          print_summary=1  (not the default for gcc's UBSan: the SUMMARY line)
#   both   log_path=$SANITIZER_LOGS/report  -> report.PID per process
#
# gcc links ASan and UBSan as two libraries that both export
# __sanitizer_set_report_path; libasan's wins, so log_path sets ASan's report
# file only. ASan and LeakSanitizer reports, and UBSan's SUMMARY line, go to
# report.PID; UBSan's full text ("FILE:LINE: runtime error: ...", stack) goes
# to the process's stderr: the test logs, which this script keeps and searches.
set -uo pipefail

cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build-asan}
logs=${SANITIZER_LOGS:-/tmp/vbrd-sanitizers}
export VBRD_TEST_PREFIX=${VBRD_TEST_PREFIX:-vs$(($$ % 10000))}
rundir=/tmp/vbrd-tests/$VBRD_TEST_PREFIX

if ! grep -qs -- '-fsanitize=address' "$BUILD/build.ninja"; then
	echo "run-sanitized.sh: $BUILD is not an ASan build (make build-asan)" >&2
	exit 1
fi
rm -rf "$logs"
mkdir -p "$logs"
rm -f "$BUILD/meson-logs/testlog.txt" # searched below: this run's only

export ASAN_OPTIONS="log_path=$logs/report:halt_on_error=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="log_path=$logs/report:halt_on_error=0:print_stacktrace=1:print_summary=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export VBRD_TEST_KEEP=1

rc=0
if [ "${1:-}" = --unit-only ]; then
	meson test -C "$BUILD" --print-errorlogs || rc=1
elif [ "${1:-}" = --all ]; then
	shift
	./tests/run-tests.sh "$@" || rc=1
elif [ $# -eq 0 ]; then
	mapfile -t files < <(sed 's/#.*//' tests/asan-files.txt | awk 'NF {print $1}')
	echo "== sanitizer run: unit tests and ${#files[@]} integration files of tests/asan-files.txt"
	./tests/run-tests.sh "${files[@]}" || rc=1
else
	./tests/run-tests.sh "$@" || rc=1
fi

# A report is a file in $logs, or UBSan's text in a log (see above: the
# file holds only its SUMMARY line, and only with print_summary=1).
reports=()
for f in "$logs"/report.*; do [ -e "$f" ] && reports+=("$f"); done
mapfile -t texts < <(grep -rl --include='*.log' --include='testlog.txt' 'runtime error:' \
	"$rundir" "$BUILD/meson-logs" 2>/dev/null)
if [ ${#reports[@]} -gt 0 ] || [ ${#texts[@]} -gt 0 ]; then
	rc=1
	echo "sanitizers: ${#reports[@]} report file(s) in $logs, UBSan text in ${#texts[@]} log(s)"
	for f in "${reports[@]}"; do
		echo "==== $f"
		sed -n '1,80p' "$f"
	done
	for f in "${texts[@]}"; do
		echo "==== UBSan in $f"
		grep -A 8 'runtime error:' "$f" | head -n 60
	done
	echo "sanitizers: test logs kept in $rundir"
else
	echo "sanitizers: no ASan, UBSan or LeakSanitizer report"
	[ "$rc" -eq 0 ] && rm -rf "$rundir"
fi
exit "$rc"
