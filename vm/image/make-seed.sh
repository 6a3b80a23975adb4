#!/bin/bash
# make-seed.sh [options] VBRD.CONF OUT — a cloud-init NoCloud seed for the
# vbrd VM image: an ISO 9660 image labelled cidata (OUT ends in .iso) or,
# with OUT a directory, the three files only (user-data, meta-data,
# network-config) to serve or pack yourself.
#
#   -k FILE    an SSH public key for root (repeatable)
#   -m MAC     the management NIC: DHCP on the NIC with this MAC (default:
#              no network-config, cloud-init's fallback: DHCP on the first NIC)
#   -H NAME    host name (default vbrd)
#   -i ID      instance id (default: a new one each time; cloud-init runs its
#              once-per-instance modules again for a new id)
#   -p PASS    a root password, for the serial console (default: none, locked)
#   -u FILE    more cloud-config, merged in (a file of YAML keys appended)
#
# The user-data writes VBRD.CONF to /etc/vbrd/vbrd.conf (write_files); the
# image's vbrd-bind.service then binds the PCI NICs it names and vbrd.service
# starts on it. To change the config later: edit /etc/vbrd/vbrd.conf in the
# VM and `systemctl reload vbrd` (a new seed is read only by a new instance).
set -euo pipefail

keys=() mac= host=vbrd id=vbrd-$(date +%s)-$$ pass= extra=
while getopts k:m:H:i:p:u:h opt; do
	case $opt in
	k) keys+=("$OPTARG") ;;
	m) mac=$OPTARG ;;
	H) host=$OPTARG ;;
	i) id=$OPTARG ;;
	p) pass=$OPTARG ;;
	u) extra=$OPTARG ;;
	*) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-k KEY.pub] [-m MAC] [-H NAME] [-i ID] [-p PASS] [-u FILE] VBRD.CONF OUT" >&2; exit 2; }
conf=$1 out=$2
[ -r "$conf" ] || { echo "$0: $conf: cannot read" >&2; exit 2; }

if [ -d "$out" ] || [[ "$out" != *.iso ]]; then
	dir=$out
	mkdir -p "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi

{
	echo "#cloud-config"
	echo "# vbrd VM seed (vm/image/make-seed.sh)"
	echo "hostname: $host"
	if [ ${#keys[@]} -gt 0 ]; then
		echo "ssh_authorized_keys:"
		for k in "${keys[@]}"; do
			echo "  - $(cat "$k")"
		done
	fi
	if [ -n "$pass" ]; then
		echo "chpasswd: { expire: false, users: [ { name: root, password: \"$pass\", type: text } ] }"
		echo "ssh_pwauth: false"
	fi
	echo "write_files:"
	echo "  - path: /etc/vbrd/vbrd.conf"
	echo "    permissions: '0644'"
	echo "    content: |"
	sed 's/^/      /' "$conf"
	if [ -n "$extra" ]; then
		cat "$extra"
	fi
} >"$dir/user-data"

printf 'instance-id: %s\nlocal-hostname: %s\n' "$id" "$host" >"$dir/meta-data"

rm -f "$dir/network-config"
if [ -n "$mac" ]; then
	cat >"$dir/network-config" <<EOF
version: 2
ethernets:
  mgmt:
    match:
      macaddress: "$mac"
    dhcp4: true
EOF
fi

if [ "$dir" != "$out" ]; then
	args=()
	[ -e "$dir/network-config" ] && args=(-N "$dir/network-config")
	cloud-localds "${args[@]}" "$out" "$dir/user-data" "$dir/meta-data"
fi
