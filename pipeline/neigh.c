/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "pipeline/neigh.h"

struct neigh_table neigh_tbl;

static struct neigh *oldest_stale(void);

int neigh_init(struct rte_rcu_qsbr *rcu)
{
	neigh_tbl.rcu = rcu;
	struct rte_hash_parameters p = {
		.name = "neigh4",
		/* twice the entries: a cuckoo hash near full can refuse a key
		 * while slots remain; the table's own limit is the free list */
		.entries = 2 * NEIGH_MAX,
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
	neigh_tbl.free_slots = rte_malloc("neigh_free", sizeof(uint32_t) * NEIGH_MAX, 0);
	if (neigh_tbl.entries == NULL || neigh_tbl.free_slots == NULL) {
		rte_free(neigh_tbl.entries);
		rte_free(neigh_tbl.free_slots);
		rte_hash_free(neigh_tbl.hash);
		return -ENOMEM;
	}
	/* lowest index on top: the table stays dense, `high` small */
	for (unsigned i = 0; i < NEIGH_MAX; i++)
		neigh_tbl.free_slots[i] = NEIGH_MAX - 1 - i;
	neigh_tbl.nb_free = NEIGH_MAX;
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
	/* Full: failed entries go first, whatever their age (Linux's neighbor
	 * GC does the same under pressure). */
	if (neigh_tbl.nb_free == 0 && neigh_gc(0, 0) == 0) {
		/* then the least recently confirmed unconfirmed one */
		struct neigh *victim = oldest_stale();
		if (victim == NULL)
			return NULL;
		neigh_remove(victim);
	}
	i = neigh_tbl.free_slots[--neigh_tbl.nb_free];
	n = &neigh_tbl.entries[i];
	if (i >= neigh_tbl.high)
		neigh_tbl.high = (unsigned)i + 1;
	memset(n, 0, sizeof(*n));
	n->key = *k;
	n->state = NEIGH_INCOMPLETE;
	n->in_use = true;
	if (rte_hash_add_key_data(neigh_tbl.hash, &n->key, (void *)i) < 0) {
		n->in_use = false;
		neigh_tbl.free_slots[neigh_tbl.nb_free++] = (uint32_t)i;
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

void neigh_learn(struct neigh *n, const struct rte_ether_addr *mac, uint64_t now_ms)
{
	uint64_t cur = atomic_load(&n->mac);
	/* we asked (a probe went out) or packets wait: this answers us */
	bool resolving = cur == 0 && (n->probes > 0 || n->nb_held > 0);
	bool same = cur == neigh_ether_to_mac(mac);

	if (resolving || (same && n->state == NEIGH_REACHABLE)) {
		neigh_set_mac(n, mac, NEIGH_REACHABLE);
	} else {
		neigh_set_mac(n, mac, NEIGH_STALE);
		n->next_probe_ms = now_ms + NEIGH_DELAY_MS;
	}
	n->updated_ms = now_ms;
}

/* The STALE entry holding nothing that was confirmed longest ago, or NULL. */
static struct neigh *oldest_stale(void)
{
	struct neigh *best = NULL;

	for (unsigned i = 0; i < neigh_tbl.high; i++) {
		struct neigh *n = &neigh_tbl.entries[i];
		if (n->in_use && n->state == NEIGH_STALE && n->nb_held == 0 &&
		    (best == NULL || n->updated_ms < best->updated_ms))
			best = n;
	}
	return best;
}

void neigh_invalidate(struct neigh *n, enum neigh_state st)
{
	atomic_store_explicit(&n->mac, 0, memory_order_release);
	neigh_sync(n, 0);
	n->state = st;
}

void neigh_remove_batch(struct neigh **victims, unsigned nb)
{
	int32_t pos[64];

	while (nb > 0) {
		unsigned k = RTE_MIN(nb, (unsigned)RTE_DIM(pos));

		for (unsigned i = 0; i < k; i++) {
			struct neigh *n = victims[i];
			atomic_store_explicit(&n->mac, 0, memory_order_release);
			neigh_sync(n, 0);
			pos[i] = rte_hash_del_key(neigh_tbl.hash, &n->key);
		}
		/* Lock-free hashes keep a deleted key's slot until the caller frees
		 * it after readers are done (rte_hash, RW_CONCURRENCY_LF); the entry
		 * itself may be reused once no worker can still hold its index. */
		rte_rcu_qsbr_synchronize(neigh_tbl.rcu, RTE_QSBR_THRID_INVALID);
		for (unsigned i = 0; i < k; i++) {
			struct neigh *n = victims[i];
			if (pos[i] >= 0)
				rte_hash_free_key_with_position(neigh_tbl.hash, pos[i]);
			for (uint16_t h = 0; h < n->nb_held; h++)
				rte_pktmbuf_free(n->held[h]);
			neigh_tbl.held_total -= n->nb_held;
			n->nb_held = 0;
			n->in_use = false;
			neigh_tbl.free_slots[neigh_tbl.nb_free++] = (uint32_t)(n -
									       neigh_tbl.entries);
		}
		victims += k;
		nb -= k;
	}
}

void neigh_remove(struct neigh *n)
{
	neigh_remove_batch(&n, 1);
}

unsigned neigh_gc(uint64_t now_ms, uint64_t min_age_ms)
{
	struct neigh *victims[256];
	unsigned total = 0, nb = 0;

	for (unsigned i = 0; i < neigh_tbl.high; i++) {
		struct neigh *n = &neigh_tbl.entries[i];

		if (!n->in_use || n->state != NEIGH_FAILED || n->nb_held)
			continue;
		if (min_age_ms && now_ms - n->failed_ms < min_age_ms)
			continue;
		victims[nb++] = n;
		if (nb == RTE_DIM(victims)) {
			neigh_remove_batch(victims, nb);
			total += nb;
			nb = 0;
		}
	}
	neigh_remove_batch(victims, nb);
	return total + nb;
}

const char *neigh_state_name(enum neigh_state st)
{
	switch (st) {
	case NEIGH_INCOMPLETE:
		return "incomplete";
	case NEIGH_REACHABLE:
		return "reachable";
	case NEIGH_STALE:
		return "stale";
	case NEIGH_FAILED:
		return "failed";
	case NEIGH_STATIC:
		return "static";
	}
	return "?";
}

/* Tell the running state's next hops and paths (their MAC caches). */
static neigh_change_fn change_fn;

void neigh_on_change(neigh_change_fn fn)
{
	change_fn = fn;
}

static void neigh_sync(const struct neigh *n, uint64_t mac)
{
	if (change_fn != NULL)
		change_fn(n->key.port, n->key.vlan, (int)n->key.family, &n->key.ip, mac);
}
