/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config reader every feature's section loader uses: typed getters
 * with range checks, names, addresses, lists of groups, and messages as
 * "FILE:LINE: setting: message" (the FILE is the @include'd file a setting
 * came from). Written once; a section never formats its own positions.
 *
 * A feature owns its top-level settings through a section:
 *
 *     static int qos_load(struct cfg_reader *rd, const config_setting_t *root,
 *                         struct vbrd_config *cfg);
 *     static struct config_section qos_section = {
 *         .name = "qos", .after = (const char *const[]){ "interfaces", NULL },
 *         .load = qos_load, .free = qos_free,
 *     };
 *     CONFIG_SECTION(qos_section);
 *
 * and keeps what it loaded with config_section_set(cfg, &qos_section, data).
 * Every setting is live (a reload applies it) unless its loader records it
 * with cfg_restart(): a reload whose file changes a restart setting is
 * refused, naming the setting, and the running config stays.
 *
 * No DPDK here: `vbrd --check-config`, the unit tests and the fuzzer link
 * the loaders without an EAL.
 */
#ifndef VBRD_CORE_CONFIG_READ_H
#define VBRD_CORE_CONFIG_READ_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

struct msg;

/** State of one config_load() call, handed to every section loader. */
struct cfg_reader {
	const char *file;        /* path as the caller gave it: the FILE of messages */
	struct vbrd_config *cfg; /* being built */
	struct msg *msgs;
	int nb_msgs;
	int cap_msgs;
	bool nomem;      /* an allocation failed: config_load() returns -ENOMEM */
	int nb_warnings; /* cfg_warn()'s, moved into the config when it loads */
	char **warnings;
	/* Per-object error flags of the core sections, so that checks that
	 * would only cascade from one mistake are skipped. */
	bool port_bad[CFG_MAX_PORTS];   /* port's MTU unknown */
	bool iface_bad[CFG_MAX_IFACES]; /* some interface address invalid */
	int port_name_line[CFG_MAX_PORTS];
	int iface_name_line[CFG_MAX_IFACES];
};

/**
 * Record a warning about setting @p s (NULL: the file): the config loads,
 * but something is unwise (Redis without a password). It goes to
 * vbrd_config.warnings as "FILE:LINE: warning: text".
 */
__attribute__((format(printf, 3, 4))) void cfg_warn(struct cfg_reader *ld,
						    const config_setting_t *s, const char *fmt,
						    ...);

/** Outcome of reading one optional setting. */
enum { CFG_VAL_BAD = -1, CFG_VAL_ABSENT = 0, CFG_VAL_OK = 1 };

/* ---- sections ------------------------------------------------------------ */

/** A feature's top-level settings. Define with CONFIG_SECTION(). */
struct config_section {
	const char *name;          /* top-level setting it owns, e.g. "tunnels" */
	const char *const *also;   /* further top-level names it owns; NULL-terminated */
	const char *const *after;  /* sections whose results it reads; NULL-terminated */
	const char *const *before; /* sections that read its results; NULL-terminated */
	/**
	 * Load the section from @p root (whether or not its settings are
	 * present: defaults are the loader's). Problems are reported with
	 * cfg_err() and friends; the return is only for resources.
	 * @return 0, or -ENOMEM
	 */
	int (*load)(struct cfg_reader *rd, const config_setting_t *root, struct vbrd_config *cfg);
	/** Release what load() kept (may be NULL). */
	void (*free)(struct vbrd_config *cfg);
	/**
	 * Optional: what the section loaded, in a few words for `vbrd
	 * --check-config` ("2 BFD sessions"), into @p buf of @p len bytes;
	 * left empty when there is nothing worth saying.
	 */
	void (*summary)(const struct vbrd_config *cfg, char *buf, size_t len);
	uint16_t id; /* set by config_section_register() */
};

/** Add @p s to the registry (CONFIG_SECTION's constructor); aborts on a duplicate. */
void config_section_register(struct config_section *s);

#define CONFIG_SECTION(var)                                           \
	__attribute__((constructor)) static void var##_register(void) \
	{                                                             \
		config_section_register(&var);                        \
	}

/** Data a section kept with config_section_set(), or NULL. */
void *config_section_get(const struct vbrd_config *cfg, const struct config_section *s);

/** Keep @p data (heap) for section @p s in @p cfg; its free hook releases it. */
void config_section_set(struct vbrd_config *cfg, const struct config_section *s, void *data);

/**
 * Record a setting that a reload cannot apply, with its value as text
 * (the default when the file omits it). On reload the old and new values
 * are compared and a change is refused with "FILE:LINE: PATH: changed from
 * OLD to NEW: restart vbrd to apply it".
 *
 * @param s     the setting (for FILE:LINE), or NULL when absent
 * @param path  dotted name as the user writes it: "workers.cores", "ports.p1.devargs"
 */
__attribute__((format(printf, 4, 5))) void cfg_restart(struct cfg_reader *rd,
						       const config_setting_t *s, const char *path,
						       const char *fmt, ...);

/**
 * Compare the restart settings of the running @p cur and a newly loaded @p next.
 * @param err  every changed setting, one "FILE:LINE: ..." line each
 * @return 0 when none changed, -EPERM otherwise
 */
int config_restart_diff(const struct vbrd_config *cur, const struct vbrd_config *next, char *err,
			size_t errlen);

/* ---- messages -------------------------------------------------------------- */

/** Line of setting @p s in its file, 0 for NULL. */
int cfg_line(const config_setting_t *s);

/** Dotted path of @p s as the user wrote it ("interfaces[1].vlan") into @p buf. */
char *cfg_path(const config_setting_t *s, char *buf, size_t len);

/** Record "FILE:LINE: text" at setting @p s (NULL: about the whole file). */
__attribute__((format(printf, 3, 4))) void cfg_err_at(struct cfg_reader *ld,
						      const config_setting_t *s, const char *fmt,
						      ...);

/** Record "FILE:LINE: PATH: text" at setting @p s. */
__attribute__((format(printf, 3, 4))) void cfg_err(struct cfg_reader *ld, const config_setting_t *s,
						   const char *fmt, ...);

/** Record @p text as "FILE:LINE: text" (LINE 0: "FILE: text"), for an object, not a setting. */
void cfg_msg(struct cfg_reader *ld, const char *file, int line, const char *text);

/** Record that group @p grp lacks the required member @p name. */
void cfg_err_missing(struct cfg_reader *ld, const config_setting_t *grp, const char *name);

/** "an integer", "a string", ...: the type of @p s for messages. */
const char *cfg_type_name(const config_setting_t *s);

/** Report every member of group @p grp not in the NULL-terminated @p keys. */
void cfg_check_members(struct cfg_reader *ld, const config_setting_t *grp, const char *const *keys);

/* ---- typed getters: each returns CFG_VAL_OK, CFG_VAL_ABSENT (out untouched:
 * the caller's default stays) or CFG_VAL_BAD (reported) ------------------- */

/** Integer value of @p s within [@p min, @p max]. */
int cfg_int_value(struct cfg_reader *ld, const config_setting_t *s, long long min, long long max,
		  long long *out);

/** Member @p name of @p grp as an integer within [@p min, @p max]. */
int cfg_get_u32(struct cfg_reader *ld, const config_setting_t *grp, const char *name, long long min,
		long long max, uint32_t *out);

/** As cfg_get_u32(), for a 16-bit field. */
int cfg_get_u16(struct cfg_reader *ld, const config_setting_t *grp, const char *name, long long min,
		long long max, uint16_t *out);

/** Member @p name of @p grp as a boolean. */
int cfg_get_bool(struct cfg_reader *ld, const config_setting_t *grp, const char *name, bool *out);

/** String value of @p s (points into the parsed file). */
int cfg_string_value(struct cfg_reader *ld, const config_setting_t *s, const char **out);

/** Member @p name of @p grp as a string (points into the parsed file). */
int cfg_get_string(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		   const char **out);

/** Member @p name as a string copied into @p buf of @p len bytes (too long: CFG_VAL_BAD). */
int cfg_get_text(struct cfg_reader *ld, const config_setting_t *grp, const char *name, char *buf,
		 size_t len);

/**
 * Member @p name as an object name ([A-Za-z0-9_.-], 1..CFG_NAME_MAX-1
 * bytes) into @p out; @p line_out (may be NULL) gets its line.
 */
int cfg_get_name(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		 char out[CFG_NAME_MAX], int *line_out);

/** Member @p name of @p grp when it has libconfig type @p type; else reported, NULL. */
const config_setting_t *cfg_get_typed(struct cfg_reader *ld, const config_setting_t *grp,
				      const char *name, int type);

/** True for an array [ ] or a list ( ). */
bool cfg_is_sequence(const config_setting_t *s);

/** Member @p name of @p grp as an IPv4 or IPv6 address. */
int cfg_get_addr(struct cfg_reader *ld, const config_setting_t *grp, const char *name,
		 struct cfg_addr *out);

/** Parse "aa:bb:cc:dd:ee:ff". @return 0 or -EINVAL. */
int cfg_parse_mac(const char *s, uint8_t mac[6]);

/* ---- lists of groups --------------------------------------------------------- */

typedef void (*cfg_elem_fn)(struct cfg_reader *ld, const config_setting_t *s, int idx);

/** How one top-level list of groups (ports, interfaces, routes, ...) loads. */
struct cfg_list_spec {
	const char *name; /* the setting, and the word in count messages */
	int min, max;     /* element count; max 0: no limit */
	bool required;
	size_t size;     /* bytes of one element */
	cfg_elem_fn one; /* loads element idx from its group */
	cfg_elem_fn bad; /* marks element idx unusable (not a group); may be NULL */
};

/**
 * Load list @p spec->name of @p root into a new array *@p arr of *@p nb
 * elements: the count is checked (and clamped to max), every group element
 * goes to spec->one, every other element is reported and handed to spec->bad.
 * @return 0 or -ENOMEM
 */
int cfg_load_list(struct cfg_reader *ld, const config_setting_t *root,
		  const struct cfg_list_spec *spec, void **arr, int *nb);

/* ---- addresses ----------------------------------------------------------------- */

/** Network address of @p p (host bits cleared). */
struct cfg_addr cfg_prefix_network(const struct cfg_prefix *p);

/** Same family and address. */
bool cfg_addr_equal(const struct cfg_addr *a, const struct cfg_addr *b);

/** "IPv4" or "IPv6". */
const char *cfg_family_name(int family);

/** fe80::/10 (RFC 4291 §2.5.6). */
bool cfg_is_link_local6(const struct cfg_addr *a);

/**
 * Why @p a cannot be an address of this router (RFC 1122 §3.2.1.3, RFC 4291
 * §2.5.2-2.7): unspecified, loopback, multicast or limited broadcast; NULL
 * when it can.
 */
const char *cfg_unusable_addr(const struct cfg_addr *a);

/**
 * Interface whose connected subnet holds @p a (longest prefix wins),
 * optionally only interface @p only (-1: any); *@p own is set to the
 * interface that has @p a as its own address, else -1.
 * @return interface index or -1
 */
int cfg_find_connected(const struct vbrd_config *cfg, const struct cfg_addr *a, int only, int *own);

/** As cfg_find_connected(), among the interfaces of VRF @p vrf only (-1: any VRF). */
int cfg_find_connected_vrf(const struct vbrd_config *cfg, const struct cfg_addr *a, int only,
			   int vrf, int *own);

/**
 * Whether @p s is a network namespace name as `ip netns` takes it (a file
 * in /run/netns): [A-Za-z0-9_.-] only, and not "." or "..". The length is
 * the caller's to check. Also the rule of cplane.tap_prefix.
 */
bool cfg_netns_name_ok(const char *s);

/**
 * Optional VRF-name setting @p name of @p grp into *@p out (a vbrd_config.vrfs
 * index; CFG_VRF_DEFAULT when absent or bad). An unknown name is reported.
 * @return CFG_VAL_OK, CFG_VAL_ABSENT or CFG_VAL_BAD
 */
int cfg_get_vrf(struct cfg_reader *ld, const config_setting_t *grp, const char *name, int *out);

/** True when some interface had an address error (routes then skip gateway checks). */
bool cfg_any_iface_bad(const struct cfg_reader *ld);

/**
 * Load an address list: member "address" (one string) or "addresses" (an
 * array of 1..@p max strings, mutually exclusive) of group @p s, as
 * ADDRESS/LENGTH, into @p out. Each must be usable (cfg_unusable_addr) and
 * not already an own address of any interface or tunnel of VRF @p vrf
 * loaded so far (-1: of any VRF).
 *
 * @param nb        addresses in @p out so far (0 on entry); grows as they load,
 *                  so that a list repeating itself is caught
 * @param required  report a group with neither member
 * @param bad       set to true when anything was reported (else untouched)
 * @return 0
 */
int cfg_load_addresses(struct cfg_reader *ld, const config_setting_t *s, int vrf,
		       struct cfg_prefix *out, int *nb, int max, bool required, bool *bad);

/**
 * The interface or tunnel that already owns address @p a, as "interface
 * 'lan1' (line 12)" in @p buf, or NULL when none does. Only interfaces
 * and tunnels of VRF @p vrf count (-1: of any VRF).
 */
const char *cfg_address_owner(const struct cfg_reader *ld, const struct cfg_addr *a, int vrf,
			      char *buf, size_t len);

#endif
