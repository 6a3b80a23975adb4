#!/bin/bash
# check-vm-files.sh VBRD — what can be checked of the VM image without
# building or booting it (make vm takes ~10 min, make vm-test ~10 min under
# emulation: both too long for CI). Run by make test (tests/tcl/
# test_vm_image.tcl) so that the image's files cannot rot unnoticed:
#
#   - every script of vm/image and vm/test parses (bash -n, dash -n);
#   - vm/test/vbrd-vm.conf, with and without the route vm-test adds on
#     reload, passes `VBRD --check-config` (the config format moves on);
#   - vbrd-bind's config scanner finds the test config's two PCI NICs, the
#     PCI NICs of a file with comments, strings and @include, and none in
#     conf/ and conf/examples/ (virtual devices), without an error;
#   - vbrd-bind -n on a fake sysfs says what it would bind;
#   - make-seed.sh writes user-data whose write_files content is the config,
#     byte for byte, and YAML that parses (python3-yaml, in packages.txt);
#   - vbrd-esp writes a systemd-boot entry with /etc/kernel/cmdline;
#   - the unit names and the config path the image relies on are the
#     package's (debian/vbrd.service, when the tree has debian/).
#
# Prints "[ok] ..." / "[FAIL] ..." per check; exit 1 if one failed.
set -uo pipefail

vbrd=${1:?usage: check-vm-files.sh VBRD}
top=$(cd "$(dirname "$0")/../.." && pwd)
img=$top/vm/image
tst=$top/vm/test
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
ok() { echo "[ok] $*"; }
fail() {
	echo "[FAIL] $*"
	failed=1
}

# --- scripts parse ------------------------------------------------------------
for f in "$img/build-image.sh" "$img/customize.sh" "$img/make-seed.sh" "$tst/vm-test.sh" "$tst/check-vm-files.sh"; do
	bash -n "$f" 2>"$work/err" || fail "bash -n ${f#"$top"/}: $(cat "$work/err")"
done
for f in "$img/files/vbrd-bind" "$img/files/vbrd-esp"; do
	sh -n "$f" 2>"$work/err" || fail "sh -n ${f#"$top"/}: $(cat "$work/err")"
done
[ $failed -eq 0 ] && ok "vm/ scripts parse"

# --- the VM test's config is a config vbrd accepts ---------------------------
conf=$tst/vbrd-vm.conf
out=$("$vbrd" --check-config "$conf" 2>&1) && ok "vbrd --check-config vm/test/vbrd-vm.conf: $out" ||
	fail "vbrd --check-config vm/test/vbrd-vm.conf: $out"
# the line vm-test.sh appends before `systemctl reload vbrd`
route=$(sed -n "s/^routes = (.*added by vm-test$/&/p" "$tst/vm-test.sh")
if [ -z "$route" ]; then
	fail "vm-test.sh: the reload's routes line not found"
else
	{ cat "$conf"; echo "$route"; } >"$work/reload.conf"
	out=$("$vbrd" --check-config "$work/reload.conf" 2>&1) && ok "the reload's config: $out" ||
		fail "the reload's config (vbrd-vm.conf + '$route'): $out"
fi

# --- vbrd-bind's scanner --------------------------------------------------------
bind=$img/files/vbrd-bind
got=$(sh "$bind" --list "$conf" 2>&1 | tr '\n' ' ')
[ "$got" = "0000:00:04.0 0000:00:05.0 " ] && ok "vbrd-bind --list vbrd-vm.conf: $got" ||
	fail "vbrd-bind --list vbrd-vm.conf: '$got', expected 0000:00:04.0 0000:00:05.0"
mkdir -p "$work/conf"
cat >"$work/conf/top.conf" <<'EOF'
instance = "x"; # devargs = "0000:00:09.0"
/* devargs = "00:0a.0"
   devargs = "00:0c.0" */ ports = ( { name = "p1"; devargs = "0000:00:04.0"; },
  { name = "p2"; devargs :
    "00:05.0,mrg_rxbuf=1"; }, { name = "v"; devargs = "net_null0,a=\"00:0d.0\""; },
  { name = "p3"; devargs = "0000:3B:00.1"; } // devargs = "00:0e.0"
);
@include "more.conf"
EOF
echo 'x = ( { devargs = "00:0b.0"; } );' >"$work/conf/more.conf"
got=$(sh "$bind" --list "$work/conf/top.conf" 2>&1 | tr '\n' ' ')
want="0000:00:04.0 0000:00:05.0 0000:00:0b.0 0000:3b:00.1 "
[ "$got" = "$want" ] && ok "vbrd-bind --list: comments, strings, @include, case" ||
	fail "vbrd-bind --list top.conf: '$got', expected '$want'"
bad=
for f in "$top"/conf/*.conf "$top"/conf/examples/*.conf; do
	got=$(sh "$bind" --list "$f" 2>&1) || bad="$bad ${f#"$top"/}(exit $?: $got)"
	[ -z "$got" ] || bad="$bad ${f#"$top"/}($got)"
done
[ -z "$bad" ] && ok "vbrd-bind --list: no PCI NIC and no error in conf/ and conf/examples/" ||
	fail "vbrd-bind --list on conf/:$bad"
sh "$bind" --list "$work/none.conf" >/dev/null 2>&1
[ $? -eq 2 ] && ok "vbrd-bind --list: a missing file is exit 2" || fail "vbrd-bind --list: a missing file is not exit 2"

# a fake sysfs: 00:04.0 on virtio-pci, 00:05.0 already on the DPDK driver
sys=$work/sys
mkdir -p "$sys/bus/pci/drivers/virtio-pci" "$sys/bus/pci/drivers/uio_pci_generic" \
	"$sys/bus/pci/devices/0000:00:04.0" "$sys/bus/pci/devices/0000:00:05.0"
ln -s ../../drivers/virtio-pci "$sys/bus/pci/devices/0000:00:04.0/driver"
ln -s ../../drivers/uio_pci_generic "$sys/bus/pci/devices/0000:00:05.0/driver"
out=$(VBRD_BIND_SYSFS=$sys VBRD_BIND_DRIVER=uio_pci_generic sh "$bind" -n "$conf" 2>&1)
if echo "$out" | grep -q "0000:00:04.0: would bind to uio_pci_generic (now: virtio-pci)" &&
	echo "$out" | grep -q "0000:00:05.0: already bound to uio_pci_generic"; then
	ok "vbrd-bind -n on a fake sysfs"
else
	fail "vbrd-bind -n on a fake sysfs: $out"
fi

# --- the NoCloud seed -------------------------------------------------------------
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE0000000000000000000000000000000000000000000 t@t" >"$work/key.pub"
if "$img/make-seed.sh" -k "$work/key.pub" -m 52:54:00:00:00:01 -i test "$conf" "$work/seed" 2>"$work/err"; then
	# the content block, de-indented, is the config
	awk 'on && !/^      / && !/^ *$/ { on = 0 } on { sub(/^      /, ""); print }
	     /^    content: \|$/ { on = 1 }' "$work/seed/user-data" >"$work/content"
	if cmp -s "$work/content" "$conf"; then
		ok "make-seed.sh: user-data's write_files content is vbrd-vm.conf"
	else
		fail "make-seed.sh: write_files content differs from vbrd-vm.conf: $(diff "$conf" "$work/content" | head -5)"
	fi
	if python3 - "$work/seed" "$conf" <<'EOF'; then
import sys, yaml
d = sys.argv[1]
u = yaml.safe_load(open(d + "/user-data"))
assert open(d + "/user-data").readline() == "#cloud-config\n"
assert u["write_files"][0]["path"] == "/etc/vbrd/vbrd.conf"
assert u["write_files"][0]["content"] == open(sys.argv[2]).read()
assert u["ssh_authorized_keys"][0].startswith("ssh-ed25519 ")
m = yaml.safe_load(open(d + "/meta-data"))
assert m["instance-id"] == "test"
n = yaml.safe_load(open(d + "/network-config"))
assert n["version"] == 2 and n["ethernets"]["mgmt"]["match"]["macaddress"] == "52:54:00:00:00:01"
EOF
		ok "make-seed.sh: user-data, meta-data and network-config are the YAML cloud-init reads"
	else
		fail "make-seed.sh: the seed's YAML is not what cloud-init expects (python3-yaml, packages.txt)"
	fi
else
	fail "make-seed.sh: $(cat "$work/err")"
fi

# --- vbrd-esp ---------------------------------------------------------------------
r=$work/root
mkdir -p "$r/boot/efi/loader" "$r/etc/kernel"
echo kernel >"$r/boot/vmlinuz-6.1.0-99-amd64"
echo initrd >"$r/boot/initrd.img-6.1.0-99-amd64"
echo "root=PARTUUID=x ro hugepages=512" >"$r/etc/kernel/cmdline"
VBRD_ROOT=$r VBRD_ESP=$r/boot/efi sh "$img/files/vbrd-esp" 6.1.0-99-amd64 >/dev/null 2>"$work/err"
e=$r/boot/efi/loader/entries/vbrd-6.1.0-99-amd64.conf
if [ -f "$e" ] && grep -qx "options root=PARTUUID=x ro hugepages=512" "$e" &&
	grep -qx "linux   /vbrd/6.1.0-99-amd64/vmlinuz" "$e" &&
	cmp -s "$r/boot/efi/vbrd/6.1.0-99-amd64/initrd.img" "$r/boot/initrd.img-6.1.0-99-amd64"; then
	ok "vbrd-esp: kernel, initrd and a loader entry with /etc/kernel/cmdline"
else
	fail "vbrd-esp: no proper entry ($(cat "$work/err" "$e" 2>/dev/null))"
fi

# --- names shared with the package ----------------------------------------------
if [ -f "$top/debian/vbrd.service" ]; then
	if grep -q '^ExecStart=.* -c /etc/vbrd/vbrd.conf$' "$top/debian/vbrd.service" &&
		grep -q '^ExecReload=' "$top/debian/vbrd.service"; then
		ok "debian/vbrd.service: runs /etc/vbrd/vbrd.conf, has ExecReload (the image's drop-in and seed rely on both)"
	else
		fail "debian/vbrd.service: no ExecStart on /etc/vbrd/vbrd.conf or no ExecReload; vm/image/files/ must follow"
	fi
else
	ok "no debian/ in this tree: the package's unit not compared"
fi

exit $failed
