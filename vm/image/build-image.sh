#!/bin/bash
# build-image.sh OUT.qcow2 VBRD.deb — the vbrd VM image for IDC edges.
#
# Debian 12 (minbase) made by mmdebstrap into a directory, with the kernel,
# systemd, cloud-init, openssh-server, FRR and the vbrd package; then a GPT
# disk assembled without loop devices or mounts: an EFI system partition
# (FAT, made with mtools) holding systemd-boot, the kernel and the initrd,
# and an ext4 root made by `mkfs.ext4 -d` from the directory. Written as a
# compressed qcow2. Runs as root (mmdebstrap's root mode chroots).
#
# Environment:
#   VM_HUGEPAGES=512      2 MiB hugepages reserved on the kernel command line
#   VM_DISK_MB=2048       disk size (the root grows to a larger disk at boot)
#   VM_CMDLINE_EXTRA=     more kernel parameters (e.g. intel_iommu=on iommu=pt)
#   VM_MIRROR=http://deb.debian.org/debian   VM_SECURITY=.../debian-security
#   VM_KEEP_ROOT=DIR      also keep the root tree in DIR (for inspection)
set -euo pipefail

usage() { echo "usage: $0 OUT.qcow2 VBRD.deb" >&2; exit 2; }
[ $# -eq 2 ] || usage
out=$1
deb=$(readlink -f "$2")
[ -f "$deb" ] || { echo "$0: $2: no such .deb (make deb builds it)" >&2; exit 2; }
for t in mmdebstrap mkfs.fat mcopy mkfs.ext4 sfdisk qemu-img; do
	command -v "$t" >/dev/null ||
		{ echo "$0: '$t' is missing (make vm-deps installs vm/packages.txt)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (mmdebstrap's root mode)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
files=$here/files

HUGEPAGES=${VM_HUGEPAGES:-512}
DISK_MB=${VM_DISK_MB:-2048}
ESP_MB=256
MIRROR=${VM_MIRROR:-http://deb.debian.org/debian}
SECURITY=${VM_SECURITY:-http://deb.debian.org/debian-security}

# Packages on top of minbase. mmdebstrap installs no Recommends: each of
# these is here for a reason.
PACKAGES=(
	systemd-sysv udev kmod            # init, device nodes, modprobe (uio_pci_generic)
	linux-image-amd64 initramfs-tools # the kernel; the initrd finds the root by PARTUUID
	systemd-boot-efi                  # the boot loader copied onto the ESP
	cloud-init cloud-guest-utils      # the NoCloud seed; growpart for a larger disk
	openssh-server                    # vbrctl over SSH
	frr                               # BGP for vbrd's control plane (disabled until configured)
	iproute2 procps less              # the operator's basics
	pciutils                          # lspci -D: which PCI address is which NIC
)

step() { printf '%s build-image: %s\n' "$(date +%T)" "$*"; }

work=$(mktemp -d "${TMPDIR:-/var/tmp}/vbrd-image.XXXXXX")
# mmdebstrap unmounts /proc, /sys and /dev of the tree when it ends, killed
# or not; should one still be mounted, it is unmounted first, and rm never
# leaves the work directory's file system (it would empty the host's /dev).
cleanup() {
	local m
	for m in $(awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" || true
	done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
root=$work/root

# Identifiers the kernel command line and fstab name (a new set per image).
disk_uuid=$(cat /proc/sys/kernel/random/uuid)
esp_uuid=$(cat /proc/sys/kernel/random/uuid)
root_uuid=$(cat /proc/sys/kernel/random/uuid)
fs_uuid=$(cat /proc/sys/kernel/random/uuid)
esp_serial=$(printf '%08X' $((RANDOM * 65536 + RANDOM)))
esp_fsid=${esp_serial:0:4}-${esp_serial:4:4}

cmdline="root=PARTUUID=$root_uuid ro rootwait console=tty0 console=ttyS0,115200n8 hugepagesz=2M hugepages=$HUGEPAGES quiet${VM_CMDLINE_EXTRA:+ $VM_CMDLINE_EXTRA}"

step "mmdebstrap bookworm (minbase + ${#PACKAGES[@]} packages + $(basename "$deb"))"
# Hooks: before the packages, initramfs-tools' settings (the initrd is made
# once, by the kernel's postinst); after, the vbrd package (apt in the chroot
# resolves its dependencies; mmdebstrap's --include cannot take a local
# .deb in root mode) and the image's own files.
mmdebstrap --mode=root --variant=minbase --format=directory \
	--include="$(IFS=,; echo "${PACKAGES[*]}")" \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-include=/usr/share/locale/locale.alias' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/kernel"' \
	--essential-hook='echo RESUME=none >"$1/etc/initramfs-tools/conf.d/resume"' \
	--essential-hook='echo COMPRESS=zstd >"$1/etc/initramfs-tools/conf.d/compress"' \
	--essential-hook="echo '$cmdline' >\"\$1/etc/kernel/cmdline\"" \
	--customize-hook="cp '$deb' \"\$1/tmp/vbrd.deb\"" \
	--customize-hook='chroot "$1" apt-get install -y -q --no-install-recommends /tmp/vbrd.deb' \
	--customize-hook='rm "$1/tmp/vbrd.deb"' \
	--customize-hook="$here/customize.sh \"\$1\" $esp_uuid $root_uuid $fs_uuid $esp_fsid" \
	bookworm "$root" \
	"deb $MIRROR bookworm main" \
	"deb $MIRROR bookworm-updates main" \
	"deb $SECURITY bookworm-security main"

if [ -n "${VM_KEEP_ROOT:-}" ]; then
	rm -rf "$VM_KEEP_ROOT" && cp -a "$root" "$VM_KEEP_ROOT"
fi

step "ESP: systemd-boot, kernel, initrd (mtools)"
esp_img=$work/esp.img
mkfs.fat -F 32 -n ESP -i "$esp_serial" -C "$esp_img" $((ESP_MB * 1024)) >/dev/null
MTOOLS_SKIP_CHECK=1 mcopy -s -i "$esp_img" "$root/boot/efi/"* ::/
# The ESP's files are in the FAT image now; /boot/efi is its mount point.
find "$root/boot/efi" -mindepth 1 -delete

step "root: ext4 from the tree (mkfs.ext4 -d)"
root_mb=$((DISK_MB - ESP_MB - 2))
used_mb=$(du -sm "$root" | cut -f1)
if [ "$used_mb" -gt $((root_mb * 9 / 10)) ]; then
	echo "build-image: the root tree is $used_mb MiB, too much for a $DISK_MB MiB disk (VM_DISK_MB)" >&2
	exit 1
fi
root_img=$work/root.img
mkfs.ext4 -q -F -L vbrd-root -U "$fs_uuid" -d "$root" "$root_img" "${root_mb}M"

step "GPT disk: ESP + root"
raw=$work/disk.raw
truncate -s "${DISK_MB}M" "$raw"
sfdisk -q "$raw" <<EOF
label: gpt
label-id: $disk_uuid
start=1MiB, size=${ESP_MB}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=$esp_uuid, name="ESP"
start=$((1 + ESP_MB))MiB, size=${root_mb}MiB, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, uuid=$root_uuid, name="vbrd-root"
EOF
dd if="$esp_img" of="$raw" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$root_img" of="$raw" bs=1M seek=$((1 + ESP_MB)) conv=notrunc,sparse status=none

step "qcow2 (compressed)"
mkdir -p "$(dirname "$out")"
qemu-img convert -c -O qcow2 "$raw" "$out.tmp"
mv "$out.tmp" "$out"
step "done: $out, $(du -m "$out" | cut -f1) MiB (disk $DISK_MB MiB, root tree $used_mb MiB)"
