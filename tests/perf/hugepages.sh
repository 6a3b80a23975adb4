# shellcheck shell=bash
# shellcheck disable=SC2034  # MODE, MODE_WHY, ... are the caller's
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/perf/hugepages.sh: 2 MiB hugepages for a bench, sourced by
# tests/perf/bench.sh (make bench, bench-qos.sh) and vm/virtio/bench-virtio.sh.
# The caller defines log() (a line to stderr) and TMP (a work dir), sets
# WANT_PAGES (free 2 MiB pages wanted; 0: none) and MIN_PAGES (fewer than
# this: no-huge), and calls huge_setup once, huge_restore at exit (also on
# failure or Ctrl-C), and huge_ensure before each program run. huge_setup
# raises /proc/sys/vm/nr_hugepages when fewer pages are free and mounts
# hugetlbfs at /dev/hugepages when none is mounted, but only in a private mount namespace (BENCH_MOUNT_NS=1: the
# caller re-ran itself under `unshare --mount --propagation private`), so
# that other DPDK processes on the machine neither see nor take the pages.
# It sets MODE to hugepages, or to no-huge with the reason in MODE_WHY;
# huge_restore sets nr_hugepages back and unmounts what it mounted.
#
# One bench at a time: huge_setup first takes an exclusive flock on
# HUGE_LOCK (/run/vbrd-bench-hugepages.lock) and holds it until huge_restore
# (or the bench's exit), so that no other bench sets nr_hugepages back under
# it (one that did once made bench.sh pass --huge-unlink with --no-huge).
# A second bench says who holds the lock and waits up to BENCH_HUGE_WAIT_S
# (1800) seconds for it, then stops with an error. The lock is taken only
# when the bench wants hugepages (not with BENCH_HUGEPAGES=0).

HUGE_MNT=/dev/hugepages
HUGE_PREV=""               # nr_hugepages before the bench raised it
HUGE_MOUNTED=0 HUGE_MKDIR=0
MODE=no-huge               # how the programs run: hugepages or no-huge
MODE_WHY=""                # why no-huge

HUGE_LOCK=${HUGE_LOCK:-/run/vbrd-bench-hugepages.lock}
HUGE_LOCK_FD=""            # fd of the held lock

huge_lock() {  # take HUGE_LOCK for this bench's life, waiting at most BENCH_HUGE_WAIT_S s
	local wait_s=${BENCH_HUGE_WAIT_S:-1800} t0
	[ -z "$HUGE_LOCK_FD" ] || return 0
	exec {HUGE_LOCK_FD}<>"$HUGE_LOCK" || { echo "cannot open $HUGE_LOCK" >&2; exit 1; }
	if ! flock -n "$HUGE_LOCK_FD"; then
		t0=$(date +%s)
		log "hugepages: another bench holds $HUGE_LOCK ($(head -1 "$HUGE_LOCK" 2>/dev/null || echo '?')); waiting up to $wait_s s for it"
		flock -w "$wait_s" "$HUGE_LOCK_FD" || {
			echo "bench: error: $HUGE_LOCK still held after $wait_s s by $(head -1 "$HUGE_LOCK" 2>/dev/null || echo '?') (BENCH_HUGE_WAIT_S)" >&2
			exit 1; }
		log "hugepages: got $HUGE_LOCK after $(( $(date +%s) - t0 )) s"
	fi
	echo "pid $$ ($(basename "$0")) since $(date -u +%H:%M:%S)" >"$HUGE_LOCK"
}

huge_unlock() {  # release HUGE_LOCK (huge_restore calls it)
	[ -n "$HUGE_LOCK_FD" ] || return 0
	: >"$HUGE_LOCK"
	flock -u "$HUGE_LOCK_FD" || true
	exec {HUGE_LOCK_FD}>&-
	HUGE_LOCK_FD=""
}

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

huge_setup() {  # have WANT_PAGES free 2 MiB pages and hugetlbfs mounted, or set MODE_WHY
	local total free
	if [ "$WANT_PAGES" = 0 ]; then
		MODE_WHY="BENCH_HUGEPAGES=0"; return
	fi
	if [ "$(meminfo Hugepagesize)" != 2048 ]; then
		MODE_WHY="default hugepage size is $(meminfo Hugepagesize) kB, not 2048"; return
	fi
	huge_lock
	if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
		if [ "${BENCH_MOUNT_NS:-}" != 1 ]; then
			MODE_WHY="no hugetlbfs mounted, and no private mount namespace to mount one in"
			return
		fi
		[ -d "$HUGE_MNT" ] || { mkdir "$HUGE_MNT" && HUGE_MKDIR=1; } ||
			{ MODE_WHY="cannot create $HUGE_MNT"; return; }
		mount -t hugetlbfs -o pagesize=2M nodev "$HUGE_MNT" 2>"$TMP/mount.err" ||
			{ MODE_WHY="cannot mount hugetlbfs: $(cat "$TMP/mount.err")"; return; }
		HUGE_MOUNTED=1
	fi
	huge_raise "$WANT_PAGES"
	free=$(meminfo HugePages_Free)
	if [ "$free" -lt "$MIN_PAGES" ]; then
		MODE_WHY="only $free free hugepages, $MIN_PAGES needed"; return
	fi
	MODE=hugepages
}

huge_raise() {  # huge_raise PAGES: have PAGES free 2 MiB pages, raising nr_hugepages
	local total free now
	total=$(meminfo HugePages_Total) free=$(meminfo HugePages_Free)
	[ "$free" -lt "$1" ] || return 0
	now=$(cat /proc/sys/vm/nr_hugepages)
	[ -n "$HUGE_PREV" ] || HUGE_PREV=$now
	echo $((total - free + $1)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	log "hugepages: nr_hugepages $now -> $(cat /proc/sys/vm/nr_hugepages), $(meminfo HugePages_Free) free"
}

huge_ensure() {  # before each program run: MIN_PAGES still free, else raise again or stop
	# (a program that does not take the lock may have taken pages or set
	# nr_hugepages back: DPDK would then fall back to --no-huge, which
	# refuses the --huge-unlink the bench passes)
	local free
	[ "$MODE" = hugepages ] || return 0
	free=$(meminfo HugePages_Free)
	[ "$free" -lt "$MIN_PAGES" ] || return 0
	log "warning: only $free free hugepages (nr_hugepages $(cat /proc/sys/vm/nr_hugepages)): another program took them or set nr_hugepages back; raising it again"
	huge_raise "$WANT_PAGES"
	free=$(meminfo HugePages_Free)
	[ "$free" -ge "$MIN_PAGES" ] || {
		echo "bench: error: only $free free 2 MiB hugepages, $MIN_PAGES needed, and nr_hugepages could not be raised: another program holds them" >&2
		exit 1; }
}

huge_lower() {  # huge_lower PAGES: give back free pages beyond PAGES that the bench added
	local total free now target
	[ -n "$HUGE_PREV" ] || return 0
	total=$(meminfo HugePages_Total) free=$(meminfo HugePages_Free)
	[ "$free" -gt "$1" ] || return 0
	now=$(cat /proc/sys/vm/nr_hugepages) target=$((total - free + $1))
	[ "$target" -ge "$HUGE_PREV" ] || target=$HUGE_PREV
	echo "$target" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	log "hugepages: nr_hugepages $now -> $(cat /proc/sys/vm/nr_hugepages), $(meminfo HugePages_Free) free"
}

huge_mode_text() {  # after huge_setup: MODE_TEXT for the result lines; a warning when no-huge
	if [ "$MODE" = hugepages ]; then
		MODE_TEXT="mode hugepages"
	else
		MODE_TEXT="mode no-huge ($MODE_WHY)"
		log "warning: running with --no-huge: $MODE_WHY"
	fi
}

huge_restore() {  # give back what huge_setup took (cleanup calls it)
	if [ -n "$HUGE_PREV" ]; then
		echo "$HUGE_PREV" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		log "hugepages: nr_hugepages back to $(cat /proc/sys/vm/nr_hugepages)" \
		    "(asked $HUGE_PREV; pages still in use stay until freed)"
		HUGE_PREV=""
	fi
	if [ "$HUGE_MOUNTED" = 1 ]; then
		umount "$HUGE_MNT" 2>/dev/null || log "warning: cannot unmount $HUGE_MNT"
		HUGE_MOUNTED=0
	fi
	if [ "$HUGE_MKDIR" = 1 ]; then
		rmdir "$HUGE_MNT" 2>/dev/null || true
		HUGE_MKDIR=0
	fi
	huge_unlock
}

huge_kb() {  # hugetlb memory of process $1, kB (0 when it has none or is gone)
	awk '/^(Private|Shared)_Hugetlb:/ { kb += $2 } END { print kb + 0 }' \
		"/proc/$1/smaps_rollup" 2>/dev/null || echo 0
}

