#!/bin/sh
# make test-deb: install, upgrade and purge the Debian package in a fresh
# Debian 12 chroot built by mmdebstrap, as an operator would with dpkg.
#
#   tests/pkg/test-deb.sh [DEB]     default: the newest build-deb/vbrd_*.deb
#
# The chroot is variant "apt" (Essential packages and apt: smaller than
# minbase) plus the .deb's own dependencies, nothing else: a missing
# dependency shows as a binary that does not run. Downloaded packages and
# apt's lists are kept in $VBRD_DEB_CACHE (default
# /var/cache/vbrd-test-deb) for the next run: apt checks every package
# against the mirror's signed index before using it, so a stale cache costs
# a download, never a wrong package.
#
# Two versions for the upgrades: the package as built (NEW), and the same
# package repacked as OLD = VERSION~test1 (sorts before it) with one more
# comment line in /etc/vbrd/vbrd.conf, so that the conffile changes between
# the two as it does between two releases. Checks:
#   install      files, conffile, units not enabled, the binaries run
#                (their libraries are all there), systemd-analyze verify
#   upgrade      a conffile the admin left alone is updated; one the admin
#                changed is kept (--force-confold, as apt -o
#                Dpkg::Options::=--force-confold), the new one beside it;
#                an enabled unit stays enabled
#   purge        nothing of the package is left: the chroot's file list is
#                the one before the install (dpkg's own records aside)
#
# Prints [ok]/[FAIL] per check and "tests: N passed, N failed"; exit 1 on a
# failure. Needs root (mmdebstrap --mode=root, chroot). The chroot is
# removed at the end (VBRD_TEST_KEEP=1 keeps it and says where).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
deb=${1:-$(ls -t "$top"/build-deb/vbrd_*.deb 2>/dev/null | head -1)}
[ -n "$deb" ] && [ -f "$deb" ] || { echo "test-deb: no package; run make deb" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "test-deb: needs root (mmdebstrap, chroot)" >&2; exit 2; }
cache=${VBRD_DEB_CACHE:-/var/cache/vbrd-test-deb}
work=$(mktemp -d /tmp/vbrd-test-deb.XXXXXX)
root=$work/root
pass=0 fail=0
t0=$(date +%s)

cleanup() {
	if [ "${VBRD_TEST_KEEP:-0}" = 1 ]; then
		echo "test-deb: kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "[ok] deb: $1"; }
bad() { fail=$((fail + 1)); echo "[FAIL] deb: $1${2:+: $2}"; }
# check NAME COMMAND...: ok when COMMAND (a shell line, run here) succeeds
check() {
	name=$1
	shift
	if out=$(eval "$*" 2>&1); then ok "$name"; else bad "$name" "$out"; fi
}
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }
dpkg_root() { in_root dpkg "$@" </dev/null >>"$work/dpkg.log" 2>&1; }
# The chroot's files (dpkg's and apt's records and logs aside).
snapshot() {
	(cd "$root" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/log -o \
		-path ./var/cache -o -path ./var/lib/apt -o -path ./tmp -o -path ./proc -o \
		-path ./dev -o -path ./sys -o -path ./run \) -prune -o -print) | sort
}

version=$(dpkg-deb -f "$deb" Version)
old_version=$version~test1
# The .deb's dependencies, without version constraints or alternatives.
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g' | grep . |
	tr '\n' ',' | sed 's/,$//')
echo "test-deb: $deb ($version); chroot: bookworm, variant apt + $deps"

# --- OLD: the same package, older, with another vbrd.conf --------------------
dpkg-deb -R "$deb" "$work/old"
sed -i "s/^Version: .*/Version: $old_version/" "$work/old/DEBIAN/control"
echo "# (shipped by $old_version)" >>"$work/old/etc/vbrd/vbrd.conf"
dpkg-deb --root-owner-group -Zgzip -b "$work/old" "$work/vbrd_old.deb" >/dev/null
rm -rf "$work/old"

# --- the chroot --------------------------------------------------------------
mkdir -p "$cache/archives" "$cache/lists"
t_root=$(date +%s)
if ! mmdebstrap --quiet --variant=apt --include="$deps" --skip=essential/unlink \
	--skip=download/empty \
	--setup-hook='mkdir -p "$1"/var/cache/apt/archives/ "$1"/var/lib/apt/lists/' \
	--setup-hook="sync-in $cache/archives /var/cache/apt/archives/" \
	--setup-hook="sync-in $cache/lists /var/lib/apt/lists/" \
	--customize-hook="sync-out /var/cache/apt/archives $cache/archives" \
	--customize-hook="sync-out /var/lib/apt/lists $cache/lists" \
	bookworm "$root" >"$work/mmdebstrap.log" 2>&1; then
	tail -20 "$work/mmdebstrap.log"
	echo "test-deb: mmdebstrap failed" >&2
	exit 1
fi
rm -f "$cache"/lists/lock "$cache"/archives/lock
t_built=$(date +%s)
echo "test-deb: chroot in $((t_built - t_root)) s ($(du -sh "$root" | cut -f1))"
cp "$deb" "$root/tmp/vbrd_new.deb"
cp "$work/vbrd_old.deb" "$root/tmp/vbrd_old.deb"
before=$work/files.before
snapshot >"$before"
conf=$root/etc/vbrd/vbrd.conf
new_conf=$work/vbrd.conf.new
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./etc/vbrd/vbrd.conf >"$new_conf"

# --- install -----------------------------------------------------------------
check "install: dpkg -i succeeds" dpkg_root -i /tmp/vbrd_new.deb
check "install: binaries, units, man pages, docs, config in place" \
	"cd '$root' && ls usr/sbin/vbrd usr/sbin/vbrctl lib/systemd/system/vbrd.service \
	 lib/systemd/system/vbrd@.service usr/share/man/man8/vbrd.8.gz \
	 usr/share/man/man8/vbrctl.8.gz usr/share/doc/vbrd/README.Debian.gz \
	 usr/share/doc/vbrd/conf/README.md.gz usr/share/doc/vbrd/examples/pathsel.conf \
	 etc/vbrd/vbrd.conf >/dev/null"
check "install: /etc/vbrd/vbrd.conf is a conffile" \
	"chroot '$root' dpkg-query -W -f='\${Conffiles}' vbrd | grep -q ' /etc/vbrd/vbrd.conf '"
check "install: vbrd and vbrctl run (every library there): --help" \
	"chroot '$root' /usr/sbin/vbrd --help >/dev/null && chroot '$root' /usr/sbin/vbrctl --help >/dev/null"
check "install: the default config is good" \
	"chroot '$root' /usr/sbin/vbrd --instance vbrd --check-config /etc/vbrd/vbrd.conf"
check "install: no unit enabled, nothing started" \
	"! ls '$root'/etc/systemd/system/*.wants/vbrd* 2>/dev/null | grep -q ."
if command -v systemd-analyze >/dev/null; then
	# The host's systemd-analyze (the chroot has no systemd: --root would
	# miss its targets) on the installed units, their commands pointed at
	# the chroot's binaries; the template as an instance. It exits 0 after
	# warnings too: any output fails the check.
	mkdir "$work/units"
	for u in vbrd.service vbrd@.service; do
		sed "s#/usr/sbin/#$root/usr/sbin/#g" "$root/lib/systemd/system/$u" >"$work/units/$u"
	done
	mv "$work/units/vbrd@.service" "$work/units/vbrd@edge1.service"
	check "install: systemd-analyze verify vbrd.service vbrd@edge1.service" \
		"out=\$(systemd-analyze verify --man=no '$work/units/vbrd.service' \
		 '$work/units/vbrd@edge1.service' 2>&1) && [ -z \"\$out\" ] || { echo \"\$out\"; false; }"
fi

# --- upgrade -----------------------------------------------------------------
dpkg_root --purge vbrd || true
check "upgrade, conffile unchanged: OLD installs" dpkg_root -i /tmp/vbrd_old.deb
check "upgrade, conffile unchanged: OLD's vbrd.conf is there" \
	"grep -q 'shipped by $old_version' '$conf'"
check "upgrade, conffile unchanged: dpkg -i --force-confold NEW" \
	dpkg_root -i --force-confold /tmp/vbrd_new.deb
check "upgrade, conffile unchanged: the new vbrd.conf replaced it" "cmp '$conf' '$new_conf'"
check "upgrade, conffile unchanged: no .dpkg-* beside it" "! ls '$conf'.dpkg-* 2>/dev/null"
check "upgrade: version is NEW" \
	"[ \"\$(chroot '$root' dpkg-query -W -f='\${Version}' vbrd)\" = '$version' ]"

dpkg_root --purge vbrd || true
check "upgrade, conffile changed: OLD installs, the admin edits vbrd.conf, enables vbrd (the link systemctl enable makes)" \
	"chroot '$root' dpkg -i /tmp/vbrd_old.deb </dev/null >>'$work/dpkg.log' 2>&1 &&
	 echo '# the admin was here' >>'$conf' &&
	 mkdir -p '$root/etc/systemd/system/multi-user.target.wants' &&
	 ln -s /lib/systemd/system/vbrd.service '$root/etc/systemd/system/multi-user.target.wants/'"
check "upgrade, conffile changed: dpkg -i --force-confold NEW (no prompt)" \
	dpkg_root -i --force-confold /tmp/vbrd_new.deb
check "upgrade, conffile changed: the admin's vbrd.conf is kept" \
	"grep -q 'the admin was here' '$conf' && grep -q 'shipped by $old_version' '$conf'"
check "upgrade, conffile changed: the new one is beside it as vbrd.conf.dpkg-dist" \
	"cmp '$conf.dpkg-dist' '$new_conf'"
check "upgrade: an enabled vbrd.service stays enabled" \
	"[ -L '$root/etc/systemd/system/multi-user.target.wants/vbrd.service' ]"

# --- purge -------------------------------------------------------------------
check "purge: dpkg --purge succeeds" dpkg_root --purge vbrd
check "purge: not installed, nothing of it left (files as before the install)" \
	"! chroot '$root' dpkg-query -W -f='\${Status}' vbrd 2>/dev/null | grep -q installed &&
	 snapshot >'$work/files.after' && diff '$before' '$work/files.after'"
check "purge: the units' enable state is gone" \
	"! ls '$root'/var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | grep -q vbrd &&
	 ! find '$root'/var/lib/systemd/deb-systemd-helper-enabled -name '*vbrd*' 2>/dev/null | grep -q ."

dpkg_root -i /tmp/vbrd_new.deb
printf 'instance = "edge1";\n' >"$root/etc/vbrd/edge1.conf"
check "purge: an instance file of the admin's stays (README.Debian), the rest goes" \
	"chroot '$root' dpkg --purge vbrd </dev/null >>'$work/dpkg.log' 2>&1 &&
	 [ -f '$root/etc/vbrd/edge1.conf' ] && [ ! -e '$conf' ]"

t1=$(date +%s)
echo "test-deb: $((t1 - t0)) s (chroot $((t_built - t_root)) s); dpkg's output: $work/dpkg.log"
echo "tests: $pass passed, $fail failed"
[ "$fail" = 0 ] || { VBRD_TEST_KEEP=1; exit 1; }
