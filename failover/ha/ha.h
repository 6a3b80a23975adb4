/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HA pair (section "ha", ha_config.h): two vbrd nodes on one LAN, one
 * of them active for the LAN's service address, chosen by a lease in Redis
 * with a fencing token (ha_role.h decides, ha_redis.h talks to Redis).
 *
 * What "active" means in the data path:
 *   - vbrd answers ARP and Neighbor Solicitations for the service address
 *     on the service interface (control.h struct addr_claim), and announces
 *     it at takeover (gratuitous ARP, unsolicited NA);
 *   - transit received on the service interface is forwarded (a struct
 *     fwd_gate on the interface, open until the lease's local deadline as
 *     a TSC value: the workers close it themselves at the deadline, even if
 *     the control thread is late or stopped). A standby drops it as
 *     ha_standby; what is for vbrd itself (ARP, BFD, STAMP) passes, and
 *     traffic from the lines towards the LAN is forwarded by both nodes.
 *
 * Everything here runs on the main lcore; the Redis client is hiredis's
 * async API on the main loop (no call blocks, none runs on a worker).
 *
 * Files: ha_module.c (module, role effects, shared state), ha_show.c
 * (vbrctl show ha, telemetry /vbrd/ha), ha_role.c, ha_redis.c, ha_config.c.
 */
#ifndef VBRD_HA_H
#define VBRD_HA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/drop.h"
#include "core/module.h"
#include "failover/ha/ha_config.h"
#include "failover/ha/ha_redis.h"
#include "failover/ha/ha_role.h"

DROP_REASON_DECLARE(drop_ha_standby);

#define HA_HISTORY 256

/** A change of role, as `show ha history` lists it. */
struct ha_event {
	uint64_t t;                   /* ns (tsc_now_ns) */
	uint8_t old_state, new_state; /* enum ha_role_state */
	uint8_t reason;               /* enum ha_reason */
	uint64_t epoch;
	char holder[64]; /* the lease's holder as last known */
};

/** The last takeover by this node. */
struct ha_takeover {
	bool valid;
	uint64_t t;            /* ns (tsc_now_ns): became active */
	uint64_t free_t;       /* ns: when the lease was free (released, or the old lease's end
	                    * as last read), 0 when unknown */
	uint64_t lease_rtt_ns; /* the acquire's round trip */
	uint8_t reason;        /* enum ha_reason */
	char from[64];         /* the previous holder ("" none) */
	unsigned adopted;      /* path choices taken from the old active's shared state */
};

/** The module's state (ha_module.c); ha_show.c reads it; both under ha_lock(). */
struct ha_node {
	bool enabled;
	struct cfg_ha cfg;
	struct ha_role role;
	struct ha_redis *redis;
	bool redis_up;
	bool was_active;
	struct ha_takeover takeover;
	/* the partner, from its published state */
	char partner[64];
	char *partner_json; /* its state:NODE, as read (NULL: none) */
	uint64_t partner_t; /* ns: when it was read */
	char *shared_json;  /* the pair's shared state, as last read or written */
	uint64_t shared_t;
	/* counters */
	uint64_t announces, publishes, publish_errors, fenced, adopt_errors;
	uint64_t renew_rtt_max_ns; /* the slowest renew seen */
	/* the lease as Redis holds it, when it is not what the pair writes */
	uint64_t lease_foreign;   /* reads that found a holder neither node nor partner */
	uint64_t lease_malformed; /* lease replies that were no lease (-EIO) */
	char foreign_holder[64];  /* the last such holder ("" none since) */
};

extern struct ha_node ha;

/**
 * Whether this node may act for the service address now: the role's local
 * deadline as the HA thread last applied it (an atomic; any thread).
 */
bool ha_is_active(void);

/**
 * Hold the HA thread's lock: struct ha_node is read and changed under it
 * (the HA thread works under it; show ha, a reload take it). Never held
 * across anything slow: the HA thread's renewals wait for it.
 */
void ha_lock(void);
/**
 * ha_lock(), waiting at most @p ms milliseconds: what the main loop uses,
 * so that an HA thread that never lets go cannot hold it.
 * @return 0 (locked), or -ETIMEDOUT.
 */
int ha_lock_for(unsigned ms);
/** Release ha_lock(). */
void ha_unlock(void);

/** How long show ha and show ha history wait for the HA thread's lock, ms. */
#define HA_SHOW_WAIT_MS 200

/**
 * The last @p cap role changes, oldest first, into @p out.
 * @return how many, or -EBUSY when the HA thread held its lock for
 * HA_SHOW_WAIT_MS.
 */
int ha_history_get(struct ha_event *out, unsigned cap);

/** Show commands and telemetry (ha_show.c). @return 0 or a negative errno. */
int ha_show_start(void);

#endif
