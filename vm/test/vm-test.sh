#!/bin/bash
# vm-test.sh [IMAGE] — boot the vbrd VM image and check that it forwards.
#
#   ns A (vmA) 10.0.1.2 ── tap ── [NIC 00:04.0 lan1 10.0.1.1  VM: vbrd, DPDK virtio PMD
#   ns B (vmB) 10.0.2.2 ── tap ── [NIC 00:05.0 lan2 10.0.2.1       lan2 10.0.2.1 ]
#   management: NIC 00:03.0, qemu user networking, SSH on 127.0.0.1:PORT
#
# The VM boots from a throw-away overlay of IMAGE (default
# build/vm/vbrd.qcow2) with a NoCloud seed (vm/image/make-seed.sh) holding
# vm/test/vbrd-vm.conf and an SSH key made for the run. KVM when /dev/kvm
# runs a guest with SSE4.2 (DPDK needs it), TCG with -cpu max otherwise.
# Each tap is created in the root namespace, opened by qemu, then moved into
# its namespace (a tap keeps its queue when moved): no bridge, no module.
#
# Checks: the NICs bound by vbrd-bind, vbrd active and its ports on the
# virtio PMD, ping and UDP from A to B through vbrd with its counters
# (vbrctl -j over SSH), a route added by `systemctl reload vbrd` carrying
# traffic, and the boot times (qemu start to the first forwarded ping;
# kernel start to vbrd's READY in the guest). Ends with
# "tests: N passed, N failed". Needs root.
#
# Environment: VM_ACCEL=kvm|tcg (default: probe), VM_VIRTIO=transitional|
# modern|legacy (the data NICs' virtio mode, default transitional),
# VM_BIND_DRIVER=uio_pci_generic|vfio-pci (default: the image's,
# uio_pci_generic), VM_IOMMU=1 (an emulated IOMMU for the data NICs),
# VM_BOOT_TIMEOUT=s (default 900), VM_PREFIX (names of
# namespaces and taps, default vm<pid mod 1000>), VM_KEEP=1 (keep the logs
# of a passing run; a failing run always keeps them).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
image=$(readlink -f "${1:-$top/build/vm/vbrd.qcow2}")
boot_timeout=${VM_BOOT_TIMEOUT:-900}
prefix=${VM_PREFIX:-vm$(($$ % 1000))}
virtio=${VM_VIRTIO:-transitional}
mgmt_mac=52:54:00:76:62:01
mac_a=52:54:00:76:62:0a
mac_b=52:54:00:76:62:0b

passed=0 failed=0
ok() { echo "[ok] $*"; passed=$((passed + 1)); }
fail() { echo "[FAIL] $*"; failed=$((failed + 1)); }
say() { printf '%s == %s\n' "$(date +%T)" "$*"; }
die() { echo "vm-test: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, taps)"
[ -f "$image" ] || die "$image: no image (make vm builds it)"
for t in qemu-system-x86_64 qemu-img ip ssh ssh-keygen cloud-localds python3 timeout; do
	command -v "$t" >/dev/null || die "'$t' is missing"
done
ovmf_code=/usr/share/OVMF/OVMF_CODE.fd ovmf_vars=/usr/share/OVMF/OVMF_VARS.fd
[ -r "$ovmf_code" ] || die "$ovmf_code missing (apt-get install ovmf)"

work=$(mktemp -d /tmp/vbrd-vm-test.XXXXXX)
ns_a=$prefix-a ns_b=$prefix-b tap_a=$prefix-ta tap_b=$prefix-tb
qemu_pid=

cleanup() {
	trap - EXIT INT TERM
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		kill "$qemu_pid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$qemu_pid" 2>/dev/null
	fi
	ip netns del "$ns_a" 2>/dev/null
	ip netns del "$ns_b" 2>/dev/null
	ip link del "$tap_a" 2>/dev/null
	ip link del "$tap_b" 2>/dev/null
	rm -f "$work/overlay.qcow2" "$work/vars.fd"
	if [ "$failed" -eq 0 ] && [ "${VM_KEEP:-0}" != 1 ] && [ "${1:-}" != keep ]; then
		rm -rf "$work"
	else
		echo "vm-test: logs kept in $work (serial.log: the VM's console)"
	fi
}
trap cleanup EXIT
trap 'echo "vm-test: interrupted"; failed=$((failed + 1)); exit 130' INT TERM

# wait_for TIMEOUT_S CMD...: run CMD every 0.5 s until it succeeds; 1 on timeout.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || return 1
		qemu_alive || return 1
		sleep 0.5
	done
}
qemu_alive() { [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; }
now_ms() { date +%s%3N; }

# --- accelerator: KVM only if it runs a guest with SSE4.2 ----------------
# A 64 KiB firmware whose reset vector writes to the isa-debug-exit port
# (qemu exits 65) proves a guest runs; -cpu Nehalem,enforce refuses to
# start when KVM cannot give the guest SSE4.2.
kvm_usable() {
	[ -w /dev/kvm ] || return 1
	python3 - "$work/probe.bin" <<'EOF' || return 1
import sys
code = bytes([0xB0, 0x20, 0xE6, 0xF4, 0xF4])  # mov al,0x20; out 0xf4,al; hlt
img = bytearray(b'\xf4' * 65536)
img[-16:-16 + len(code)] = code
open(sys.argv[1], 'wb').write(img)
EOF
	timeout 20 qemu-system-x86_64 -accel kvm -cpu Nehalem,enforce -machine pc -m 16 \
		-bios "$work/probe.bin" -display none -nodefaults \
		-device isa-debug-exit,iobase=0xf4,iosize=4 >/dev/null 2>&1
	[ $? -eq 65 ]
}
case ${VM_ACCEL:-} in
kvm) accel=(-accel kvm -cpu host) ;;
tcg) accel=(-accel tcg,thread=multi -cpu max) ;;
'') if kvm_usable; then accel=(-accel kvm -cpu host); else accel=(-accel tcg,thread=multi -cpu max); fi ;;
*) die "VM_ACCEL=$VM_ACCEL: kvm or tcg" ;;
esac
say "image $image ($(du -m "$image" | cut -f1) MiB), accelerator ${accel[1]%%,*} (${accel[*]})"

case $virtio in
transitional) vopt= ;;
modern) vopt=,disable-legacy=on ;;
legacy) vopt=,disable-modern=on ;;
*) die "VM_VIRTIO=$virtio: transitional, modern or legacy" ;;
esac
# VM_IOMMU=1: an emulated Intel IOMMU, the data NICs' DMA through it
# (virtio 1.0's iommu_platform); for vfio-pci in its safe mode. The image
# must have intel_iommu=on on its command line (VM_CMDLINE_EXTRA).
iommu=()
if [ "${VM_IOMMU:-0}" = 1 ]; then
	iommu=(-device intel-iommu)
	vopt=,disable-legacy=on,iommu_platform=on
fi

# --- seed -------------------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -C vbrd-vm-test -f "$work/id" || die "ssh-keygen failed"
extra=$work/extra.yaml
: >"$extra"
if [ -n "${VM_BIND_DRIVER:-}" ]; then
	cat >>"$extra" <<EOF
bootcmd:
  - [ sh, -c, "sed -i 's/^VBRD_BIND_DRIVER=.*/VBRD_BIND_DRIVER=$VM_BIND_DRIVER/' /etc/default/vbrd-bind" ]
EOF
fi
"$top/vm/image/make-seed.sh" -k "$work/id.pub" -m "$mgmt_mac" -i "vm-test-$$" -p vbrd -u "$extra" \
	"$here/vbrd-vm.conf" "$work/seed.iso" || die "make-seed.sh failed"

# --- host side: namespaces and taps ---------------------------------------
for ns in "$ns_a" "$ns_b"; do
	ip netns del "$ns" 2>/dev/null
	ip netns add "$ns" || die "ip netns add $ns failed"
	ip -n "$ns" link set lo up
done
for t in "$tap_a" "$tap_b"; do
	ip link del "$t" 2>/dev/null
	ip tuntap add dev "$t" mode tap || die "ip tuntap add $t failed"
done

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ssh_opts=(-i "$work/id" -p "$port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o LogLevel=ERROR -o ConnectTimeout=10 -o BatchMode=yes)
# vm CMD...: run CMD in the VM over SSH. sshd restarts while cloud-init
# configures it; a refused or reset connection (ssh's 255) is tried again.
vm() {
	local i rc
	for i in 1 2 3 4 5; do
		timeout 120 ssh "${ssh_opts[@]}" root@127.0.0.1 "$@"
		rc=$?
		[ $rc -eq 255 ] || return $rc
		sleep 2
	done
	return $rc
}

# 1 GiB larger than the image: cloud-init's growpart must grow the root
disk_mb=$(($(qemu-img info --output=json "$image" | python3 -c 'import json,sys; print(json.load(sys.stdin)["virtual-size"])') / 1048576 + 1024))
qemu-img create -q -f qcow2 -F qcow2 -b "$image" "$work/overlay.qcow2" "${disk_mb}M" || die "qemu-img create failed"
cp "$ovmf_vars" "$work/vars.fd"

say "starting the VM (2 vCPUs, 2 GiB; serial console in $work/serial.log)"
t_start=$(now_ms)
qemu-system-x86_64 "${accel[@]}" -machine q35 -smp 2 -m 2048 \
	-display none -vga none -nodefaults -no-user-config "${iommu[@]}" \
	-drive if=pflash,format=raw,readonly=on,file="$ovmf_code" \
	-drive if=pflash,format=raw,file="$work/vars.fd" \
	-drive if=none,id=disk,file="$work/overlay.qcow2",format=qcow2,discard=unmap \
	-device virtio-blk-pci,drive=disk,addr=0x6,bootindex=0 \
	-drive if=none,id=seed,file="$work/seed.iso",format=raw,readonly=on,media=cdrom \
	-device ide-cd,drive=seed,bus=ide.0 \
	-netdev user,id=mgmt,hostfwd=tcp:127.0.0.1:"$port"-:22 \
	-device virtio-net-pci,netdev=mgmt,mac=$mgmt_mac,addr=0x3 \
	-netdev tap,id=a,ifname="$tap_a",script=no,downscript=no \
	-device virtio-net-pci,netdev=a,mac=$mac_a,addr=0x4$vopt \
	-netdev tap,id=b,ifname="$tap_b",script=no,downscript=no \
	-device virtio-net-pci,netdev=b,mac=$mac_b,addr=0x5$vopt \
	-serial file:"$work/serial.log" -monitor none \
	-pidfile "$work/qemu.pid" -daemonize >"$work/qemu.log" 2>&1 ||
	{ cat "$work/qemu.log"; die "qemu did not start"; }
qemu_pid=$(cat "$work/qemu.pid")

# qemu holds both taps now: move each into its namespace, as a host there.
ip link set "$tap_a" netns "$ns_a" && ip link set "$tap_b" netns "$ns_b" || die "moving the taps failed"
ip -n "$ns_a" addr add 10.0.1.2/24 dev "$tap_a" && ip -n "$ns_a" link set "$tap_a" up &&
	ip -n "$ns_a" route add default via 10.0.1.1 || die "ns A setup failed"
ip -n "$ns_b" addr add 10.0.2.2/24 dev "$tap_b" && ip -n "$ns_b" link set "$tap_b" up &&
	ip -n "$ns_b" route add default via 10.0.2.1 && ip -n "$ns_b" addr add 10.20.0.1/32 dev lo ||
	die "ns B setup failed"

# --- boot: the first packet forwarded -------------------------------------
say "waiting for vbrd to forward A -> B (ping 10.0.2.2 from $ns_a; up to $boot_timeout s)"
# Forwarding, or a unit of ours that failed (systemd prints it on the
# console even with quiet): then there is no point in waiting on.
forwards_or_failed() {
	ip netns exec "$ns_a" ping -c 1 -W 1 10.0.2.2 >/dev/null 2>&1 && return 0
	if grep -a -q 'Failed to start.*\(vbrd\|Bind vbrd\)' "$work/serial.log"; then
		boot_failed=1
		return 0
	fi
	return 1
}
boot_failed=0
if wait_for "$boot_timeout" forwards_or_failed && [ $boot_failed = 0 ]; then
	t_fwd=$(now_ms)
	boot_fwd_s=$(awk "BEGIN { printf \"%.1f\", ($t_fwd - $t_start) / 1000 }")
	ok "vbrd forwards A -> B through the virtio PMD: first ping answered $boot_fwd_s s after qemu started"
else
	boot_fwd_s=
	if [ $boot_failed = 1 ]; then
		fail "no ping A -> B: $(grep -a -m1 -o 'Failed to start.*' "$work/serial.log")"
	else
		fail "no ping A -> B within $boot_timeout s (serial.log: $work/serial.log)"
	fi
fi

say "waiting for SSH (root, the seed's key)"
if wait_for 300 vm true; then
	ok "SSH to the VM as root with the seed's key"
else
	fail "no SSH to the VM"
	tail -40 "$work/serial.log"
	exit 1
fi

# cloud-init's later stages (config, final) still run; they restart sshd.
st=$(vm 'cloud-init status --wait >/dev/null; cloud-init status --long')
if echo "$st" | grep -q '^status: done' && ! vm "grep -q 'Invalid cloud-config' /var/log/cloud-init.log"; then
	ok "cloud-init finished: status done, no schema warning"
else
	fail "cloud-init: $(echo "$st" | tr '\n' ' ') $(vm "grep -m1 'Invalid cloud-config' /var/log/cloud-init.log")"
fi

# --- binding, service, PMD -------------------------------------------------
drv=$(vm 'for d in 0000:00:04.0 0000:00:05.0; do basename "$(readlink /sys/bus/pci/devices/$d/driver)"; done | sort -u')
want=$(vm '. /etc/default/vbrd-bind; echo $VBRD_BIND_DRIVER')
if [ "$drv" = "$want" ]; then
	ok "vbrd-bind bound 00:04.0 and 00:05.0 to $drv"
else
	fail "data NICs bound to '$drv', expected '$want' ($(vm journalctl -b -u vbrd-bind --no-pager | tail -5))"
fi
st=$(vm systemctl is-active vbrd-bind vbrd | tr '\n' ' ')
[ "$st" = "active active " ] && ok "vbrd-bind.service and vbrd.service active" ||
	fail "vbrd-bind, vbrd: $st"

root_mb=$(vm df -m --output=size / | tail -1 | tr -d ' ')
if [ -n "$root_mb" ] && [ "$root_mb" -gt $((disk_mb - 1024)) ]; then
	ok "the root file system grew to the disk: $root_mb MiB of a $disk_mb MiB disk"
else
	fail "the root file system did not grow: '$root_mb' MiB of a $disk_mb MiB disk"
fi

# hugepages from the kernel command line, and vbrd running on them
read -r total free cmd <<<"$(vm 'echo $(awk "/HugePages_Total/ {print \$2}" /proc/meminfo) $(awk "/HugePages_Free/ {print \$2}" /proc/meminfo) $(grep -o "hugepages=[0-9]*" /proc/cmdline)')"
# (vbrd maps its pages and unlinks them: the pool's free count drops)
if [ -n "$total" ] && [ "$cmd" = "hugepages=$total" ] && [ "$total" -gt 0 ] && [ "$free" -lt "$total" ]; then
	ok "hugepages: $total x 2 MiB from the kernel command line ($cmd), vbrd uses $((total - free))"
else
	fail "hugepages: total '$total', free '$free', command line '$cmd'"
fi

vm vbrctl -j show ports >"$work/ports.json"
if python3 - "$work/ports.json" <<'EOF'; then
import json, sys
p = json.load(open(sys.argv[1]))["ports"]
assert len(p) == 2, p
for x in p:
    assert x["driver"] == "net_virtio", x
    assert x["link"] == "up", x
print("  ports:", ", ".join(f'{x["name"]} {x["devargs"]} {x["driver"]} {x["link"]}' for x in p))
EOF
	ok "vbrctl -j show ports over SSH: two ports on net_virtio, link up"
else
	fail "show ports: $(cat "$work/ports.json")"
fi

# --- UDP through vbrd, counted -----------------------------------------------
count() {
	vm vbrctl -j show interfaces | python3 -c '
import json, sys
i = {x["name"]: x for x in json.load(sys.stdin)["interfaces"]}
print(i["lan1"]["rx_packets"], i["lan2"]["tx_packets"])'
}
read -r rx0 tx0 <<<"$(count)"
rm -f "$work/udp.count.ready"
ip netns exec "$ns_b" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("10.0.2.2", 9999)); s.settimeout(15)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
open(sys.argv[1] + ".ready", "w").close()
n = 0
try:
    while n < 1000:
        s.recv(2048); n += 1
except socket.timeout:
    pass
open(sys.argv[1], "w").write(str(n))' "$work/udp.count" &
rx_pid=$!
wait_for 20 test -e "$work/udp.count.ready" || fail "the UDP receiver in $ns_b did not start"
ip netns exec "$ns_a" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1000):
    s.sendto(b"x" * 512, ("10.0.2.2", 9999))
    if i % 50 == 49: time.sleep(0.01)'
wait $rx_pid
got=$(cat "$work/udp.count" 2>/dev/null || echo 0)
read -r rx1 tx1 <<<"$(count)"
if [ "$got" -ge 990 ] && [ $((rx1 - rx0)) -ge "$got" ] && [ $((tx1 - tx0)) -ge "$got" ]; then
	ok "UDP A -> B: $got/1000 datagrams received; lan1 rx +$((rx1 - rx0)), lan2 tx +$((tx1 - tx0)) (vbrctl -j show interfaces)"
else
	fail "UDP A -> B: $got/1000 received; lan1 rx +$((rx1 - rx0)), lan2 tx +$((tx1 - tx0))"
fi

# --- reload: a new route --------------------------------------------------
if ip netns exec "$ns_a" ping -c 1 -W 1 10.20.0.1 >/dev/null 2>&1; then
	fail "10.20.0.1 answers before the route exists"
fi
vm 'cat >>/etc/vbrd/vbrd.conf <<EOF
routes = ( { prefix = "10.20.0.0/16"; via = "10.0.2.2"; } );  # added by vm-test
EOF
systemctl reload vbrd' >"$work/reload.log" 2>&1
rl=$?
if [ $rl -eq 0 ] && wait_for 10 ip netns exec "$ns_a" ping -c 1 -W 1 10.20.0.1 &&
	vm vbrctl -j show routes | grep -q '"10.20.0.0/16"'; then
	ok "systemctl reload vbrd: the new route 10.20.0.0/16 is in show routes and carries ping A -> 10.20.0.1"
else
	fail "reload (rc $rl: $(cat "$work/reload.log")): route 10.20.0.0/16 not in effect"
fi
if [ "$(vm systemctl show vbrd -p NRestarts --value)" = 0 ] && [ "$(vm systemctl is-active vbrd)" = active ]; then
	ok "vbrd reloaded in place (no restart)"
else
	fail "vbrd restarted or stopped over the reload"
fi

# --- boot times ---------------------------------------------------------------
ready_us=$(vm systemctl show vbrd -p ActiveEnterTimestampMonotonic --value)
bind_us=$(vm systemctl show vbrd-bind -p ActiveEnterTimestampMonotonic --value)
ci_us=$(vm systemctl show cloud-init -p ActiveEnterTimestampMonotonic --value)
vm systemd-analyze >"$work/analyze.txt" 2>&1
vm systemd-analyze blame 2>/dev/null | head -12 >"$work/blame.txt"
vm journalctl -b -u vbrd --no-pager >"$work/vbrd.journal" 2>&1
if [ -n "$ready_us" ] && [ "$ready_us" -gt 0 ]; then
	sec() { awk "BEGIN { printf \"%.1f\", $1 / 1000000 }"; }
	ok "boot times: qemu start -> first forwarded ping ${boot_fwd_s:-?} s; in the guest (since the kernel started): cloud-init done $(sec "$ci_us") s, NICs bound $(sec "$bind_us") s, vbrd READY $(sec "$ready_us") s"
	sed 's/^/  /' "$work/analyze.txt"
	echo "  slowest units (systemd-analyze blame):"
	sed 's/^/  /' "$work/blame.txt"
else
	fail "no READY time for vbrd.service"
fi

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
