#!/bin/bash
# customize.sh ROOT ESP_PARTUUID ROOT_PARTUUID ROOT_FSUUID ESP_FSID
# mmdebstrap's customize hook of build-image.sh: the image's own files,
# units, fstab, and the ESP's tree in ROOT/boot/efi (copied into the FAT
# image afterwards). ROOT is the finished Debian tree; commands that must
# see it as / run in a chroot (mmdebstrap mounted /proc, /sys and /dev).
set -euo pipefail

root=$1 esp_uuid=$2 root_uuid=$3 fs_uuid=$4 esp_fsid=$5
files=$(cd "$(dirname "$0")" && pwd)/files
in_root() { chroot "$root" "$@"; }

# --- the image's programs and units ---------------------------------------
install -m 0755 "$files/vbrd-bind" "$root/usr/local/sbin/vbrd-bind"
install -m 0644 "$files/default-vbrd-bind" "$root/etc/default/vbrd-bind"
install -m 0644 "$files/vbrd-bind.service" "$root/etc/systemd/system/vbrd-bind.service"
install -D -m 0644 "$files/vbrd-vm.conf" "$root/etc/systemd/system/vbrd.service.d/vm.conf"
install -m 0644 "$files/90-vbrd.cfg" "$root/etc/cloud/cloud.cfg.d/90-vbrd.cfg"
install -m 0755 "$files/vbrd-esp" "$root/usr/local/sbin/vbrd-esp"
for d in kernel/postinst.d initramfs/post-update.d kernel/postrm.d; do
	mkdir -p "$root/etc/$d"
	ln -sf /usr/local/sbin/vbrd-esp "$root/etc/$d/zz-vbrd-esp"
done
# wait-online: one configured link (the management NIC) is enough; the
# data NICs belong to DPDK and never come up in the kernel.
install -D -m 0644 /dev/stdin "$root/etc/systemd/system/systemd-networkd-wait-online.service.d/vbrd.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=/lib/systemd/systemd-networkd-wait-online --any --timeout=30
EOF

# The package enables no unit (its README.Debian: a host needs its NICs bound
# and a config first); in the image both come at boot, so vbrd starts.
# no default user (root logs in with the seed's keys): Debian's cloud.cfg
# names one, and a cloud.cfg.d file can only replace the list, with one
# that cloud-init's schema refuses when empty
sed -i '/^users:$/{N;/\n *- default$/d}' "$root/etc/cloud/cloud.cfg"
if grep -q '^users:' "$root/etc/cloud/cloud.cfg"; then
	echo "customize: /etc/cloud/cloud.cfg still names users; its format changed" >&2
	exit 1
fi

in_root systemctl enable -q vbrd-bind.service vbrd.service systemd-networkd.service
# FRR runs when the operator configures it (seed: runcmd systemctl enable --now frr)
in_root systemctl disable -q frr.service 2>/dev/null || true

# --- identity, fstab ---------------------------------------------------------
echo vbrd >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tvbrd\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
cat >"$root/etc/fstab" <<EOF
# <device>                                 <dir>      <type> <options>                  <dump> <pass>
PARTUUID=$root_uuid  /          ext4   errors=remount-ro          0      1
PARTUUID=$esp_uuid  /boot/efi  vfat   umask=0077,nofail          0      2
EOF
# every VM makes its own host keys (cloud-init) and machine id
rm -f "$root"/etc/ssh/ssh_host_*
: >"$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"

# --- ESP: systemd-boot, the loader, the kernel ----------------------------
esp=$root/boot/efi
mkdir -p "$esp/EFI/BOOT" "$esp/EFI/systemd" "$esp/loader/entries"
cp "$root/usr/lib/systemd/boot/efi/systemd-bootx64.efi" "$esp/EFI/BOOT/BOOTX64.EFI"
cp "$root/usr/lib/systemd/boot/efi/systemd-bootx64.efi" "$esp/EFI/systemd/systemd-bootx64.efi"
# timeout 0: no menu unless a key is held; the newest kernel boots
printf 'default vbrd-*\ntimeout 0\nconsole-mode keep\neditor yes\n' >"$esp/loader/loader.conf"
for k in "$root"/boot/vmlinuz-*; do
	VBRD_ROOT=$root VBRD_ESP=$esp "$files/vbrd-esp" "${k#"$root"/boot/vmlinuz-}"
done
ls "$esp"/loader/entries/*.conf >/dev/null

# --- smaller: caches the VM does not need ---------------------------------
in_root apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/debconf/*-old "$root"/var/log/*.log
echo "customize: esp $esp_fsid, root PARTUUID $root_uuid, fs $fs_uuid"
