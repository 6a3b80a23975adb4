#!/usr/bin/env bash
# Run vbrd's unit tests (meson test) and integration tests (tests/tcl/test_*.tcl).
#
#   tests/run-tests.sh [--no-unit] [NAME...]
#
# NAME selects integration files (test_NAME.tcl); default: all of them.
# Prints "[ok] NAME" / "[FAIL] NAME: reason" / "[skip] NAME: reason" per test
# and ends with one line "tests: N passed, N failed[, N skipped]". Progress
# lines start with "==": "== [i/N] test_NAME.tcl" before a file, "==
# test_NAME.tcl: 12 s, 5 ok[, 1 failed][, 1 skipped]" after it (the same
# for the unit tests), so that a long check is never a silent minute.
# Exits 1 if any test failed. Needs root and a built tree (make deps build).
#
# Environment: BUILD (build dir, default build), VBRD_TEST_PREFIX (name
# prefix of namespaces/veths, default vt<pid mod 10000>), VBRD_TEST_ONLY
# (glob on test names), VBRD_FILE_TIMEOUT (s per test file, default 240;
# a file that needs longer says so in a line "# file-timeout: SECONDS"),
# VBRD_TEST_KEEP=1 (keep the logs and configs of a run that passed, too).
set -uo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

if [ "$(id -u)" -ne 0 ]; then
	echo "run-tests.sh: the integration tests need root (network namespaces," \
	     "veth pairs, DPDK); run as root, e.g. 'sudo make test'" >&2
	exit 1
fi
for tool in tclsh ip ethtool ping iperf3 timeout; do
	if ! command -v "$tool" >/dev/null; then
		echo "run-tests.sh: '$tool' is missing; run 'make deps' first" >&2
		exit 1
	fi
done

unit=1
names=()
for a in "$@"; do
	case "$a" in
	--no-unit) unit=0 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) names+=("$a") ;;
	esac
done

prefix=${VBRD_TEST_PREFIX:-vt$(($$ % 10000))}
export VBRD_TEST_PREFIX=$prefix
export VBRD_BUILD=$BUILD
rundir=/tmp/vbrd-tests/$prefix
rm -rf "$rundir"
mkdir -p "$rundir"
file_timeout=${VBRD_FILE_TIMEOUT:-240}

passed=0
failed=0
skipped=0
child=

# Delete whatever this run left behind: processes it started (only those
# whose command line names the prefix), processes in its namespaces, its
# veths and namespaces, DPDK runtime directories of its vbrd instances, its
# nft tables in the root namespace.
# shellcheck source=tests/lab-cleanup.sh
. tests/lab-cleanup.sh
cleanup() {
	lab_cleanup_run "$prefix" "$rundir"
	return 0
}

on_signal() {
	trap - INT TERM
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	cleanup
	echo "run-tests.sh: interrupted; cleaned up namespaces and processes of $prefix" >&2
	exit 130
}
trap on_signal INT TERM

count() { # FILE: add its [ok]/[FAIL]/[skip] lines to the totals
	local p f s
	p=$(grep -c '^\[ok\] ' "$1")
	f=$(grep -c '^\[FAIL\] ' "$1")
	s=$(grep -c '^\[skip\] ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	_file_passed=$p
	_file_failed=$f
	_file_skipped=$s
	grep '^\[FAIL\] ' "$1" >>"$rundir/failures"
}
done_line() { # NAME SECONDS: "== NAME: 12 s, 5 ok[, 1 failed][, 1 skipped]"
	local l="== $1: $2 s, $_file_passed ok"
	[ "$_file_failed" -gt 0 ] && l="$l, $_file_failed failed"
	[ "$_file_skipped" -gt 0 ] && l="$l, $_file_skipped skipped"
	echo "$l"
}
fail() { # MESSAGE: a failure that no test file printed
	echo "[FAIL] $1"
	echo "[FAIL] $1" >>"$rundir/failures"
	failed=$((failed + 1))
}

# --- unit tests (meson test) ---
if [ "$unit" = 1 ]; then
	echo "== unit tests (meson test)"
	t0=$SECONDS
	ulog=$rundir/unit.log
	# "  3/12 config   OK   0.01s": one line per test as meson finishes it,
	# printed at once (the failure summary repeats some; keep the first
	# line of each index, and read on to the end so that tee writes all).
	meson test -C "$BUILD" --print-errorlogs 2>&1 | tee "$ulog" |
	awk '/^Summary of Failures/ { done = 1 }
	     !done && match($0, /^ *[0-9]+\/[0-9]+ +[^ ]+ +(OK|FAIL|SKIP|TIMEOUT|EXPECTEDFAIL|UNEXPECTEDPASS|ERROR)/) {
		n = split(substr($0, RSTART, RLENGTH), w, / +/)
		if (w[1] == "") { name = w[3]; res = w[4] } else { name = w[2]; res = w[3] }
		if (res == "OK" || res == "EXPECTEDFAIL") print "[ok] unit: " name
		else if (res == "SKIP") print "[skip] unit: " name ": skipped by meson"
		else print "[FAIL] unit: " name ": " res " (see below)"
		fflush()
	     }' | tee "$rundir/unit.out"
	urc=${PIPESTATUS[0]}
	count "$rundir/unit.out"
	if [ "$urc" -ne 0 ]; then
		if [ "$_file_failed" -eq 0 ]; then
			fail "unit: meson test exited with status $urc"
			_file_failed=1
		fi
		sed 's/^/    /' "$ulog" | tail -n 60
	fi
	done_line "unit tests" $((SECONDS - t0))
fi

# --- integration tests (Tcl) ---
files=()
if [ ${#names[@]} -eq 0 ]; then
	files=(tests/tcl/test_*.tcl)
else
	for n in "${names[@]}"; do
		n=${n#test_}; n=${n%.tcl}
		files+=("tests/tcl/test_$n.tcl")
	done
fi
i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	echo "== [$i/${#files[@]}] $(basename "$f")"
	[ -e "$f" ] || { fail "$f: no such test file"; continue; }
	t0=$SECONDS
	area=$(basename "$f" .tcl); area=${area#test_}
	out=$rundir/$area.out
	touch "$rundir/.started"
	# Output to the terminal and to $out; run in the background so that
	# INT/TERM reach on_signal at once, then wait for tee to finish the file.
	exec {teefd}> >(tee "$out")
	teepid=$!
	ft=$(sed -n 's/^# file-timeout: \([0-9][0-9]*\)$/\1/p' "$f" | head -1)
	[ -n "$ft" ] && [ "$ft" -gt "$file_timeout" ] || ft=$file_timeout
	# {teefd}>&-: the file's daemons must not inherit tee's pipe, else a
	# file killed with them still up (timeout -k, SIGKILL) keeps tee open
	# and the wait below forever
	timeout -k 10 "$ft" tclsh tests/tcl/run.tcl "$f" >&"$teefd" 2>&1 {teefd}>&- &
	child=$!
	wait "$child"
	rc=$?
	child=
	exec {teefd}>&-
	# what a killed file left running may still write to tee (stdout of a
	# process in its namespaces): end it before waiting for tee
	[ "$rc" -eq 0 ] || cleanup
	wait "$teepid"
	count "$out"
	if [ "$rc" -ne 0 ] && [ "$_file_failed" -eq 0 ]; then
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			[ "$rc" -eq 124 ] && fail "$area: timed out after $ft s" ||
				fail "$area: killed (SIGKILL: timed out after $ft s, or by hand)"
		else
			fail "$area: run.tcl exited with status $rc"
		fi
	fi
	if [ "$rc" -ne 0 ] || [ "$_file_failed" -gt 0 ]; then
		# the next files reuse the lab's names (region1.log ...): keep
		# what this one wrote
		mkdir -p "$rundir/$area.files"
		find "$rundir" -maxdepth 1 -type f -newer "$rundir/.started" \
			\( -name '*.log' -o -name '*.conf' -o -name '*.txt' -o -name '*.json' \) \
			-exec cp -p {} "$rundir/$area.files/" \;
		# FRR's and BIRD's instances (configs, logs), named by host; OVS's (ovs.tcl)
		find "$rundir" -maxdepth 1 -type d -newer "$rundir/.started" \
			\( -name 'frr-*' -o -name 'bird-*' -o -name ovs \) \
			-exec cp -rp {} "$rundir/$area.files/" \; 2>/dev/null
		echo "    $area's logs and configs: $rundir/$area.files"
	fi
	cleanup
	if [ "$rc" -ne 0 ] && [ "$_file_failed" -eq 0 ]; then
		_file_failed=1 # the fail line above
	fi
	done_line "$(basename "$f")" $((SECONDS - t0))
done

cleanup
summary="tests: $passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
if [ "$failed" -eq 0 ] && [ "${VBRD_TEST_KEEP:-0}" != 1 ]; then
	rm -rf "$rundir"
else
	echo "logs and configs: $rundir"
fi
if [ "$failed" -gt 0 ] && [ -s "$rundir/failures" ]; then
	# Repeated here so that the tail of a long log names what failed.
	echo "failed:"
	sed 's/^/  /' "$rundir/failures"
fi
echo "$summary"
[ "$failed" -eq 0 ]
