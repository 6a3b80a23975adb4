/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "fwd.h"
#include "neigh.h"

struct neigh_table neigh_tbl;

int neigh_init(struct rte_rcu_qsbr *rcu)
{
	neigh_tbl.rcu = rcu;
	struct rte_hash_parameters p = {
		.name = "neigh4",
		.entries = NEIGH_MAX,
		.key_len = sizeof(struct neigh_key),
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
		/* one writer (control), lock-free readers (workers) */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	neigh_tbl.hash = rte_hash_create(&p);
	if (neigh_tbl.hash == NULL)
		return -ENOMEM;
	neigh_tbl.entries = rte_zmalloc("neigh4", sizeof(struct neigh) * NEIGH_MAX,
					RTE_CACHE_LINE_SIZE);
	if (neigh_tbl.entries == NULL) {
		rte_hash_free(neigh_tbl.hash);
		return -ENOMEM;
	}
	return 0;
}

struct neigh *neigh_find_key(const struct neigh_key *k)
{
	void *data;

	if (rte_hash_lookup_data(neigh_tbl.hash, k, &data) < 0)
		return NULL;
	return &neigh_tbl.entries[(uintptr_t)data];
}

struct neigh *neigh_get_key(const struct neigh_key *k)
{
	struct neigh *n = neigh_find_key(k);
	uintptr_t i;

	if (n != NULL)
		return n;
	for (i = 0; i < NEIGH_MAX; i++)
		if (!neigh_tbl.entries[i].in_use)
			break;
	if (i == NEIGH_MAX)
		return NULL;
	n = &neigh_tbl.entries[i];
	if (i >= neigh_tbl.high)
		neigh_tbl.high = (unsigned)i + 1;
	memset(n, 0, sizeof(*n));
	n->key = *k;
	n->state = NEIGH_INCOMPLETE;
	n->in_use = true;
	if (rte_hash_add_key_data(neigh_tbl.hash, &n->key, (void *)i) < 0) {
		n->in_use = false;
		return NULL;
	}
	return n;
}

static void neigh_sync(const struct neigh *n, uint64_t mac);

void neigh_set_mac(struct neigh *n, const struct rte_ether_addr *mac, enum neigh_state st)
{
	atomic_store_explicit(&n->mac, neigh_ether_to_mac(mac), memory_order_release);
	neigh_sync(n, neigh_ether_to_mac(mac));
	n->state = st;
	n->probes = 0;
}

void neigh_invalidate(struct neigh *n, enum neigh_state st)
{
	atomic_store_explicit(&n->mac, 0, memory_order_release);
	neigh_sync(n, 0);
	n->state = st;
}

void neigh_remove(struct neigh *n)
{
	atomic_store_explicit(&n->mac, 0, memory_order_release);
	neigh_sync(n, 0);
	int32_t pos = rte_hash_del_key(neigh_tbl.hash, &n->key);
	/* Lock-free hashes keep a deleted key's slot until the caller frees it
	 * after readers are done (rte_hash, RW_CONCURRENCY_LF). */
	rte_rcu_qsbr_synchronize(neigh_tbl.rcu, RTE_QSBR_THRID_INVALID);
	if (pos >= 0)
		rte_hash_free_key_with_position(neigh_tbl.hash, pos);
	for (uint16_t i = 0; i < n->nb_held; i++)
		rte_pktmbuf_free(n->held[i]);
	n->nb_held = 0;
	n->in_use = false;
}

const char *neigh_state_name(enum neigh_state st)
{
	switch (st) {
	case NEIGH_INCOMPLETE: return "incomplete";
	case NEIGH_REACHABLE: return "reachable";
	case NEIGH_STALE: return "stale";
	case NEIGH_FAILED: return "failed";
	case NEIGH_STATIC: return "static";
	}
	return "?";
}

/* Tell the running state's next hops and paths (their MAC caches). */
static void neigh_sync(const struct neigh *n, uint64_t mac)
{
	fwd_neigh_changed(atomic_load(&fwd_current), n->key.port, n->key.vlan,
			  (int)n->key.family, &n->key.ip, mac);
}
