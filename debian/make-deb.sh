#!/bin/sh
# make deb: the Debian package of this tree, built in a copy of it under
# build-deb/ (the source tree stays clean: dpkg-buildpackage writes next to
# and inside the tree it builds), then checked with lintian.
#
#   debian/make-deb.sh            -> build-deb/vbrd_VERSION_amd64.deb
#
# VERSION is the meson project version plus the commit, 0.1.0+gitN.HASH
# (N: commits up to HEAD, so a later commit sorts newer; "+dirty" when the
# tree has uncommitted changes), or $DEB_VERSION. It goes into a changelog
# entry of its own above debian/changelog's, in the copy only.
# Environment: DEB_OUT (default build-deb), DEB_VERSION, LINTIAN=0 to skip
# lintian.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${DEB_OUT:-$top/build-deb}
case $out in /*) ;; *) out=$top/$out ;; esac
t0=$(date +%s)

base=$(sed -n "s/^  version: '\([^']*\)',.*/\1/p" "$top/meson.build")
[ -n "$base" ] || { echo "make-deb: no version in meson.build" >&2; exit 1; }
if git -C "$top" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	n=$(git -C "$top" rev-list --count HEAD)
	hash=$(git -C "$top" rev-parse --short=8 HEAD)
	dirty=$(git -C "$top" status --porcelain --untracked-files=no | grep -q . && echo +dirty || true)
	version=${DEB_VERSION:-$base+git$n.$hash$dirty}
	date=$(git -C "$top" log -1 --format=%cD HEAD)
	what="git commit $hash$dirty"
else
	version=${DEB_VERSION:-$base}
	date=$(date -R)
	what="a tree without git"
fi

dpkg-checkbuilddeps "$top/debian/control" || {
	echo "make-deb: install the build dependencies above (make deps does)" >&2
	exit 1
}

# The copy: git's files (tracked, and untracked ones not ignored), or the
# whole tree without build directories when there is no git.
src=$out/vbrd-$version
rm -rf "$out"
mkdir -p "$src"
if git -C "$top" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$src" -xf -
else
	(cd "$top" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -C "$src" -xf -
fi
maint=$(sed -n 's/^Maintainer: //p' "$top/debian/control")
{
	printf 'vbrd (%s) bookworm; urgency=medium\n\n' "$version"
	printf '  * Built by make deb from %s.\n\n' "$what"
	printf ' -- %s  %s\n\n' "$maint" "$date"
	cat "$top/debian/changelog"
} > "$src/debian/changelog"

echo "make-deb: building vbrd $version in $src"
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -b -uc -us) > "$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "make-deb: dpkg-buildpackage failed, log: $out/build.log" >&2
	exit 1
}
rm -rf "$src" # the built tree: only the package and its log stay
deb=$(ls "$out"/vbrd_"$version"_*.deb)
t1=$(date +%s)

if [ "${LINTIAN:-1}" != 0 ]; then
	echo "make-deb: lintian"
	# errors and warnings fail; the overrides say why each is there
	lintian --fail-on error,warning --info "$out"/vbrd_"$version"_*.changes
fi
t2=$(date +%s)

echo "make-deb: $deb"
echo "make-deb: $(stat -c %s "$deb") bytes ($(du -h "$deb" | cut -f1)), installed size" \
	"$(dpkg-deb -f "$deb" Installed-Size) KiB; build $((t1 - t0)) s, lintian $((t2 - t1)) s"
