#!/usr/bin/env bash
# make deps: install the Debian packages of packages.txt that are missing.
#
#   scripts/deps.sh [PACKAGES_FILE]     (default: packages.txt beside scripts/)
#
# Silent when every package is installed (make run and make test call it
# each time). Otherwise, as root:
#   - names the missing packages, then what apt adds for them: the
#     dependencies, and any installed package a dependency needs a newer
#     version of (apt upgrades only those; nothing else is upgraded);
#   - installs them with apt-get --no-install-recommends;
#   - starts no service meanwhile: a /usr/sbin/policy-rc.d that answers
#     101 (action forbidden) while apt runs, only when the machine has no
#     policy-rc.d of its own, removed afterwards however apt ended;
#   - leaves every service, socket and timer of the packages this run
#     installed (dependencies too) disabled: systemctl disable (works
#     without systemd running), update-rc.d NAME disable for init scripts
#     (sysvinit links), and stops any of them that runs (systemd as PID 1,
#     or an init script when a policy-rc.d of the machine's let it start).
#     The tests and the labs start their own FRR, BIRD and Redis.
# Services of packages the machine already had are not touched.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
list=${1:-$root/packages.txt}
export DEBIAN_FRONTEND=noninteractive

# Package names: a line's first word; '#' starts a comment.
mapfile -t wanted < <(sed 's/#.*//' "$list" | awk 'NF { print $1 }')

installed_names() { # the packages dpkg has installed, one a line, sorted
	dpkg-query -W -f='${db:Status-Status} ${Package}\n' 2>/dev/null |
		awk '$1 == "installed" { print $2 }' | sort -u
}

missing=()
have=$(installed_names)
for p in "${wanted[@]}"; do
	grep -qxF "$p" <<<"$have" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run 'make deps' as root to install them" >&2
	exit 1
fi

say() { echo "deps: $*"; }
wrap() { fold -s -w 76 | sed 's/^/  /'; }

say "installing ${#missing[@]} packages of $(basename "$list"), without recommends:"
echo "${missing[*]}" | wrap
apt-get update -q

# What apt will do, from a simulation: "Inst NAME (VERSION ...)" installs
# NAME, "Inst NAME [OLD] (NEW ...)" upgrades it.
sim=$(apt-get install -s -q --no-install-recommends "${missing[@]}")
new=$(awk '$1 == "Inst" && $3 !~ /^\[/ { print $2 }' <<<"$sim")
upg=$(awk '$1 == "Inst" && $3 ~ /^\[/ { v = $4; sub(/^\(/, "", v); print $2 " (" substr($3, 2, length($3) - 2) " -> " v ")" }' <<<"$sim")
n_new=$(grep -c . <<<"$new" || true)
say "apt installs $n_new packages: those and $((n_new - ${#missing[@]})) they depend on"
if [ -n "$upg" ]; then
	say "and upgrades $(grep -c . <<<"$upg") installed ones that those need newer versions of:"
	while read -r u; do echo "  $u"; done <<<"$upg"
fi

# No service starts while apt runs (unless the machine has its own policy).
policy=/usr/sbin/policy-rc.d
policy_ours=0
before=$(installed_names)

# Every unit and init script of the packages this run installed: disable it,
# stop it if it runs. Also on a failed or interrupted install.
leave_disabled() {
	local after added pkg f unit name disabled=() stopped=()
	after=$(installed_names)
	added=$(comm -13 <(echo "$before") <(echo "$after"))
	local units=() user_units=() scripts=()
	for pkg in $added; do
		while read -r f; do
			# aliases go with their unit
			if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi
			case "$f" in
			*@.*) ;; # templates: enabled only per instance
			/lib/systemd/system/*.* | /usr/lib/systemd/system/*.*)
				units+=("${f##*/}") ;;
			/usr/lib/systemd/user/*.*)
				user_units+=("${f##*/}") ;;
			/etc/init.d/*)
				scripts+=("${f##*/}") ;;
			esac
		done < <(dpkg-query -L "$pkg" 2>/dev/null)
	done
	for unit in "${units[@]}"; do
		case "$unit" in *.service | *.socket | *.timer | *.path) ;; *) continue ;; esac
		if [ -d /run/systemd/system ] && systemctl -q is-active "$unit" 2>/dev/null; then
			systemctl stop "$unit" && stopped+=("$unit")
		fi
		if command -v systemctl >/dev/null; then
			if [ "$(systemctl is-enabled "$unit" 2>/dev/null)" = enabled ]; then
				systemctl disable -q "$unit" 2>/dev/null && disabled+=("$unit")
			fi
		elif deb-systemd-helper --quiet is-enabled "$unit" 2>/dev/null; then
			deb-systemd-helper disable "$unit" && disabled+=("$unit")
		fi
	done
	# user units enabled for every user (gpg-agent's sockets, say)
	for unit in "${user_units[@]}"; do
		case "$unit" in *.service | *.socket | *.timer | *.path) ;; *) continue ;; esac
		if command -v systemctl >/dev/null; then
			if [ "$(systemctl --global is-enabled "$unit" 2>/dev/null)" = enabled ]; then
				systemctl --global disable -q "$unit" 2>/dev/null && disabled+=("$unit (user)")
			fi
		elif deb-systemd-helper --user --quiet is-enabled "$unit" 2>/dev/null; then
			deb-systemd-helper --user disable "$unit" && disabled+=("$unit (user)")
		fi
	done
	for name in "${scripts[@]}"; do
		# without systemd as PID 1 and with a policy-rc.d of the machine's
		# that let the install start it: stop it (all it runs was started
		# by this install; bird2's script has no status to ask first)
		if [ ! -d /run/systemd/system ] && [ "$policy_ours" = 0 ] &&
		   ! policy_forbids "$name"; then
			invoke-rc.d "$name" stop >/dev/null 2>&1 && stopped+=("$name (init script)")
		fi
		if compgen -G "/etc/rc[2-5].d/S[0-9][0-9]$name" >/dev/null; then
			update-rc.d "$name" disable >/dev/null 2>&1 &&
				disabled+=("$name (init script)")
		fi
	done
	if [ ${#stopped[@]} -gt 0 ]; then
		say "stopped: ${stopped[*]}"
	fi
	if [ ${#disabled[@]} -gt 0 ]; then
		say "left disabled (the tests start their own):"
		echo "${disabled[*]}" | wrap
	fi
}

policy_forbids() { # NAME: the machine's policy-rc.d forbids starting it
	[ -x "$policy" ] || return 1
	local rc=0
	"$policy" "$1" start >/dev/null 2>&1 || rc=$?
	[ "$rc" = 101 ]
}

finish() {
	local status=$?
	trap - EXIT INT TERM
	if [ "$policy_ours" = 1 ]; then
		rm -f "$policy"
	fi
	leave_disabled || status=1
	exit "$status"
}

# Ours is known by its second line: one that a run killed before it could
# remove it (SIGKILL, a power cut) is removed by the next run, not taken
# for the machine's own and left to forbid every service start for good.
policy_mark='# written by vbrd scripts/deps.sh while apt runs; removed after'
trap finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
if [ ! -e "$policy" ] && [ ! -L "$policy" ]; then
	policy_ours=1
	printf '#!/bin/sh\n%s\nexit 101\n' "$policy_mark" >"$policy"
	chmod 755 "$policy"
elif [ -f "$policy" ] && [ ! -L "$policy" ] && [ "$(sed -n 2p "$policy")" = "$policy_mark" ]; then
	say "$policy: left by an earlier make deps that was killed; removed after this one"
	policy_ours=1
fi

apt-get install -y -q --no-install-recommends "${missing[@]}"
