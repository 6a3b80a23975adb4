/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel names of the control plane's TAPs and VRF devices (tap.h):
 * plain C, no netlink, so that the config check (`vbrd --check-config`,
 * cplane_config.c) finds a name that cannot be, or that two would share,
 * before start-up does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "frr/cplane/tap.h"

/* ---- names ---- */

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static bool name_chars_ok(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	for (; *s; s++)
		if (!name_char_ok(*s))
			return false;
	return true;
}

/* FNV-1a, 32 bits (Fowler, Noll, Vo; draft-eastlake-fnv). */
static uint32_t fnv1a32(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 16777619u;
	}
	return h;
}

int cp_tap_name(const char *prefix, const char *ifname, char out[IFNAMSIZ])
{
	size_t np, nn, keep;

	if (prefix == NULL)
		prefix = CP_TAP_DEFAULT_PREFIX;
	if (!name_chars_ok(prefix, 0, CP_TAP_PREFIX_MAX) ||
	    !name_chars_ok(ifname, 1, CFG_NAME_MAX - 1))
		return -EINVAL;
	np = strlen(prefix);
	nn = strlen(ifname);
	if (np + nn <= IFNAMSIZ - 1) {
		/* The kernel refuses "." and ".." (dev_valid_name()). */
		if (np == 0 && (strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0))
			return -EINVAL;
		memcpy(out, prefix, np);
		memcpy(out + np, ifname, nn + 1);
		return 0;
	}
	/* prefix + head + '~' + 4 hex digits = IFNAMSIZ - 1 characters */
	keep = IFNAMSIZ - 1 - np - 5;
	memcpy(out, prefix, np);
	memcpy(out + np, ifname, keep);
	snprintf(out + np + keep, 6, "~%04x", (unsigned)(fnv1a32(ifname) & 0xffff));
	return 0;
}

int cp_tap_names_check(const char *prefix, const char *const *ifnames, unsigned n, char *err,
		       size_t errlen)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];

	for (unsigned i = 0; i < n; i++) {
		if (cp_tap_name(prefix, ifnames[i], a) < 0) {
			snprintf(err, errlen, "no TAP name for interface '%s' with prefix '%s'",
				 ifnames[i], prefix ? prefix : CP_TAP_DEFAULT_PREFIX);
			return -EINVAL;
		}
		/* Quadratic, but only names shortened with a hash can collide:
		 * compare those alone. */
		if (strchr(a, '~') == NULL)
			continue;
		for (unsigned j = 0; j < i; j++) {
			if (cp_tap_name(prefix, ifnames[j], b) < 0 || strcmp(a, b) != 0)
				continue;
			snprintf(err, errlen,
				 "interfaces '%s' and '%s' would both have the TAP name '%s': "
				 "rename one (names of up to %zu characters are used whole)",
				 ifnames[j], ifnames[i], a,
				 IFNAMSIZ - 1 - strlen(prefix ? prefix : CP_TAP_DEFAULT_PREFIX));
			return -EEXIST;
		}
	}
	return 0;
}

int cp_vrf_name(const char *vrf, char out[IFNAMSIZ])
{
	return cp_tap_name("", vrf, out);
}

int cp_vrf_names_check(const char *tap_prefix, const char *const *ifnames, unsigned n,
		       const char *const *vrfs, unsigned m, char *err, size_t errlen)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];

	for (unsigned i = 0; i < m; i++) {
		if (cp_vrf_name(vrfs[i], a) < 0) {
			snprintf(err, errlen, "no kernel device name for VRF '%s'", vrfs[i]);
			return -EINVAL;
		}
		for (unsigned j = 0; j < i; j++) {
			if (cp_vrf_name(vrfs[j], b) < 0 || strcmp(a, b) != 0)
				continue;
			snprintf(err, errlen,
				 "VRFs '%s' and '%s' would both have the kernel device name '%s': "
				 "rename one (names of up to %d characters are used whole)",
				 vrfs[j], vrfs[i], a, IFNAMSIZ - 1);
			return -EEXIST;
		}
		for (unsigned j = 0; j < n; j++) {
			if (cp_tap_name(tap_prefix, ifnames[j], b) < 0 || strcmp(a, b) != 0)
				continue;
			snprintf(
				err, errlen,
				"VRF '%s' and the TAP of interface '%s' would both have the kernel "
				"device name '%s': rename one, or change cplane.tap_prefix",
				vrfs[i], ifnames[j], a);
			return -EEXIST;
		}
	}
	return 0;
}
