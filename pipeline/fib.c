/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The persistent FIB (fib.h): route tables, stable ids, in-place diffs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>

#include "core/config.h"
#include "core/idtab.h"
#include "core/idtab.h"
#include "pipeline/fib.h"
#include "pipeline/fwd.h"
#include "pipeline/fwd6.h"

/* ---- route tables ------------------------------------------------------- */

static int grow(void **v, uint32_t *cap, uint32_t nb, size_t elt)
{
	if (nb < *cap)
		return 0;
	uint32_t ncap = *cap ? *cap * 2 : 1024;
	void *n = realloc(*v, (size_t)ncap * elt);

	if (n == NULL)
		return -ENOMEM;
	*v = n;
	*cap = ncap;
	return 0;
}

int fib_table_add4(struct fib_table *t, uint32_t addr, uint8_t len, uint32_t value, uint8_t flags)
{
	if (len > 32)
		return -EINVAL;
	if (grow((void **)&t->v4, &t->cap4, t->nb4, sizeof(*t->v4)) < 0)
		return -ENOMEM;
	t->v4[t->nb4++] = (struct fib_route4){
		.addr = len ? addr & ~0u << (32 - len) : 0,
		.len = len,
		.flags = flags,
		.value = value,
	};
	t->sorted = false;
	return 0;
}

int fib_table_add6(struct fib_table *t, const uint8_t *addr, uint8_t len, uint32_t value,
		   uint8_t flags)
{
	if (len > 128)
		return -EINVAL;
	if (grow((void **)&t->v6, &t->cap6, t->nb6, sizeof(*t->v6)) < 0)
		return -ENOMEM;
	struct fib_route6 *r = &t->v6[t->nb6++];

	memset(r, 0, sizeof(*r));
	memcpy(r->addr, addr, 16);
	for (int b = len; b < 128; b++)
		r->addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
	r->len = len;
	r->flags = flags;
	r->value = value;
	t->sorted = false;
	return 0;
}

static uint64_t key4(const struct fib_route4 *r)
{
	return (uint64_t)r->addr << 6 | r->len;
}

/* LSD radix sort on (address, length), 38 bits in four 10-bit digits:
 * stable, so entries of one prefix stay in the order they were added. */
static int sort4(struct fib_table *t)
{
	enum { BITS = 10, BUCKETS = 1 << BITS };
	struct fib_route4 *tmp, *src = t->v4, *dst;
	uint32_t *count;

	if (t->nb4 < 2)
		return 0;
	tmp = malloc((size_t)t->nb4 * sizeof(*tmp));
	count = malloc(BUCKETS * sizeof(*count));
	if (tmp == NULL || count == NULL) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	for (int shift = 0; shift < 40; shift += BITS) {
		memset(count, 0, BUCKETS * sizeof(*count));
		for (uint32_t i = 0; i < t->nb4; i++)
			count[(key4(&src[i]) >> shift) & (BUCKETS - 1)]++;
		for (uint32_t b = 0, sum = 0; b < BUCKETS; b++) {
			uint32_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < t->nb4; i++)
			dst[count[(key4(&src[i]) >> shift) & (BUCKETS - 1)]++] = src[i];
		struct fib_route4 *x = src;
		src = dst;
		dst = x;
	}
	/* four passes: the sorted data is back in t->v4 */
	free(tmp);
	free(count);
	return 0;
}

static const struct fib_route6 *sort6_base;

static int cmp6(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct fib_route6 *x = &sort6_base[i], *y = &sort6_base[j];
	int c = memcmp(x->addr, y->addr, 16);

	if (c == 0)
		c = (int)x->len - (int)y->len;
	if (c == 0)
		c = i < j ? -1 : i > j;
	return c;
}

static int sort6(struct fib_table *t)
{
	uint32_t *idx;
	struct fib_route6 *out;

	if (t->nb6 < 2)
		return 0;
	idx = malloc((size_t)t->nb6 * sizeof(*idx));
	out = malloc((size_t)t->nb6 * sizeof(*out));
	if (idx == NULL || out == NULL) {
		free(idx);
		free(out);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->nb6; i++)
		idx[i] = i;
	sort6_base = t->v6;
	qsort(idx, t->nb6, sizeof(*idx), cmp6);
	for (uint32_t i = 0; i < t->nb6; i++)
		out[i] = t->v6[idx[i]];
	free(idx);
	free(t->v6);
	t->v6 = out;
	t->cap6 = t->nb6;
	return 0;
}

static bool same6(const struct fib_route6 *a, const struct fib_route6 *b)
{
	return a->len == b->len && memcmp(a->addr, b->addr, 16) == 0;
}

int fib_table_sort(struct fib_table *t)
{
	uint32_t k = 0;

	if (sort4(t) < 0 || sort6(t) < 0)
		return -ENOMEM;
	/* of one prefix, the last added wins; the others' ids are released */
	for (uint32_t i = 0; i < t->nb4; i++) {
		if (i + 1 < t->nb4 && t->v4[i + 1].addr == t->v4[i].addr &&
		    t->v4[i + 1].len == t->v4[i].len) {
			fib_value_put(t->v4[i].value);
			continue;
		}
		t->v4[k++] = t->v4[i];
	}
	t->nb4 = k;
	k = 0;
	for (uint32_t i = 0; i < t->nb6; i++) {
		if (i + 1 < t->nb6 && same6(&t->v6[i + 1], &t->v6[i])) {
			fib_value_put(t->v6[i].value);
			continue;
		}
		t->v6[k++] = t->v6[i];
	}
	t->nb6 = k;
	t->sorted = true;
	return 0;
}

void fib_table_free(struct fib_table *t)
{
	for (uint32_t i = 0; i < t->nb4; i++)
		fib_value_put(t->v4[i].value);
	for (uint32_t i = 0; i < t->nb6; i++)
		fib_value_put(t->v6[i].value);
	free(t->v4);
	free(t->v6);
	memset(t, 0, sizeof(*t));
}

const struct fib_route4 *fib_table_find4(const struct fib_table *t, uint32_t addr, uint8_t len)
{
	uint64_t want = (uint64_t)addr << 6 | len;
	uint32_t lo = 0, hi = t->nb4;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (key4(&t->v4[mid]) < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nb4 && key4(&t->v4[lo]) == want ? &t->v4[lo] : NULL;
}

static int cmp6_route(const struct fib_route6 *a, const struct fib_route6 *b)
{
	int c = memcmp(a->addr, b->addr, 16);

	return c != 0 ? c : (int)a->len - (int)b->len;
}

const struct fib_route6 *fib_table_find6(const struct fib_table *t, const uint8_t *addr,
					 uint8_t len)
{
	struct fib_route6 want = { .len = len };
	uint32_t lo = 0, hi = t->nb6;

	memcpy(want.addr, addr, 16);
	for (int b = len; b < 128; b++)
		want.addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cmp6_route(&t->v6[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nb6 && cmp6_route(&t->v6[lo], &want) == 0 ? &t->v6[lo] : NULL;
}

void fib_table_need(const struct fib_table *t, struct fib_capacity *need)
{
	uint32_t groups = 0, prev = 0;
	bool any = false;

	memset(need, 0, sizeof(*need));
	need->routes4 = t->nb4;
	need->routes6 = t->nb6;
	/* DIR24_8: one tbl8 group per /24 holding a longer prefix */
	for (uint32_t i = 0; i < t->nb4; i++) {
		if (t->v4[i].len <= 24)
			continue;
		uint32_t g = t->v4[i].addr >> 8;
		if (!any || g != prev)
			groups++;
		prev = g;
		any = true;
	}
	need->tbl8_4 = groups;
	/* trie: one group per distinct first k bytes (k >= 3) that a longer
	 * prefix extends; entries sharing k bytes are adjacent once sorted */
	groups = 0;
	for (int k = 3; k < 16; k++) {
		const uint8_t *last = NULL;
		for (uint32_t i = 0; i < t->nb6; i++) {
			if (t->v6[i].len <= 8 * k)
				continue;
			if (last == NULL || memcmp(last, t->v6[i].addr, (size_t)k) != 0)
				groups++;
			last = t->v6[i].addr;
		}
	}
	need->tbl8_6 = groups;
}

void fib_capacity_headroom(struct fib_capacity *a)
{
	a->routes4 += a->routes4 / 4 + 1024;
	a->tbl8_4 += a->tbl8_4 / 4 + 256;
	a->routes6 += a->routes6 / 4 + 1024;
	a->tbl8_6 += a->tbl8_6 / 4 + 256;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* What a config's own addresses add to its routes (fwd_state_build()'s entries). */
struct cfg_walk {
	uint32_t nb4;         /* IPv4 entries */
	uint32_t nb24, cap24; /* /24s of IPv4 entries longer than /24 */
	uint32_t *g24;
	struct fib_table t6; /* IPv6 entries, values left out */
	int ret;
};

static void walk4(struct cfg_walk *w, uint32_t addr, uint8_t len)
{
	w->nb4++;
	if (len <= 24 || w->ret < 0)
		return;
	if (grow((void **)&w->g24, &w->cap24, w->nb24, sizeof(*w->g24)) < 0) {
		w->ret = -ENOMEM;
		return;
	}
	w->g24[w->nb24++] = addr >> 8;
}

static void walk6(struct cfg_walk *w, const uint8_t *addr, uint8_t len)
{
	if (w->ret == 0)
		w->ret = fib_table_add6(&w->t6, addr, len, FIB_NH(FIB_KIND_NONE, 0), 0);
}

/* Every FIB entry a config makes in VRF @p vrf, as fwd_state_build() adds
 * them: IPv4 only counted (and the /24s that need a tbl8 group), IPv6 in a
 * table. */
static int config_walk(const struct vbrd_config *cfg, int vrf, struct cfg_walk *w)
{
	for (int i = 0; i < cfg->nb_ifaces + cfg->nb_tunnels; i++) {
		bool tun = i >= cfg->nb_ifaces;
		if ((tun ? cfg->tunnels[i - cfg->nb_ifaces].vrf : cfg->ifaces[i].vrf) != vrf)
			continue;
		const struct cfg_prefix *a = tun ? cfg->tunnels[i - cfg->nb_ifaces].addrs
						 : cfg->ifaces[i].addrs;
		int n = tun ? cfg->tunnels[i - cfg->nb_ifaces].nb_addrs : cfg->ifaces[i].nb_addrs;

		for (int k = 0; k < n; k++) {
			if (a[k].addr.family == AF_INET) {
				uint32_t mask = a[k].len ? ~0u << (32 - a[k].len) : 0;
				walk4(w, a[k].addr.v4, a[k].len);
				walk4(w, a[k].addr.v4, 32);
				if (a[k].len <= 30) {
					walk4(w, a[k].addr.v4 & mask, 32);
					walk4(w, a[k].addr.v4 | ~mask, 32);
				}
			} else {
				walk6(w, a[k].addr.v6, a[k].len);
				walk6(w, a[k].addr.v6, 128);
			}
		}
	}
	for (int i = 0; i < cfg->nb_tunnels; i++) {
		const struct cfg_addr *l = &cfg->tunnels[i].local;
		if (cfg->tunnels[i].underlay_vrf != vrf)
			continue;
		if (l->family == AF_INET)
			walk4(w, l->v4, 32);
		else if (l->family == AF_INET6)
			walk6(w, l->v6, 128);
	}
	for (int r = 0; r < cfg->nb_routes; r++) {
		const struct cfg_prefix *p = &cfg->routes[r].prefix;
		if (cfg->routes[r].vrf != vrf)
			continue;
		if (p->addr.family == AF_INET)
			walk4(w, p->addr.v4 & (p->len ? ~0u << (32 - p->len) : 0), p->len);
		else if (p->addr.family == AF_INET6)
			walk6(w, p->addr.v6, p->len);
	}
	if (w->ret == 0)
		w->ret = fib_table_sort(&w->t6);
	return w->ret;
}

void fib_capacity_for_vrf(const struct vbrd_config *cfg, int vrf, struct fib_capacity *cap)
{
	struct cfg_walk w = { 0 };
	const struct cfg_fib_size *size = vrf == CFG_VRF_DEFAULT || vrf >= cfg->nb_vrfs
						  ? &cfg->fib
						  : &cfg->vrfs[vrf].fib;

	if (config_walk(cfg, vrf, &w) == 0) {
		fib_table_need(&w.t6, cap);
		cap->routes4 = w.nb4;
		if (w.nb24 > 1)
			qsort(w.g24, w.nb24, sizeof(*w.g24), cmp_u32);
		cap->tbl8_4 = 0;
		for (uint32_t i = 0; i < w.nb24; i++)
			cap->tbl8_4 += i == 0 || w.g24[i] != w.g24[i - 1];
	} else {
		/* out of memory: the old worst case, one group per entry */
		cap->routes4 = cap->tbl8_4 = (uint32_t)cfg->nb_routes + 1024;
		cap->routes6 = cap->tbl8_6 = (uint32_t)cfg->nb_routes + 1024;
	}
	free(w.g24);
	fib_table_free(&w.t6);
	fib_capacity_headroom(cap);
	cap->routes4 = RTE_MAX(cap->routes4, size->ipv4_routes);
	cap->tbl8_4 = RTE_MAX(cap->tbl8_4, size->ipv4_tbl8);
	cap->routes6 = RTE_MAX(cap->routes6, size->ipv6_routes);
	cap->tbl8_6 = RTE_MAX(cap->tbl8_6, size->ipv6_tbl8);
	/* DIR24_8 next hops are 4 bytes with one bit of flag: num_tbl8 < 2^31 */
	cap->tbl8_4 = RTE_MIN(cap->tbl8_4, 1u << 24);
	cap->tbl8_6 = RTE_MIN(cap->tbl8_6, 1u << 24);
}

void fib_capacity_for_config(const struct vbrd_config *cfg, struct fib_capacity *cap)
{
	fib_capacity_for_vrf(cfg, CFG_VRF_DEFAULT, cap);
}

bool fib_capacity_fits(const struct fib_capacity *need, const struct fib_capacity *have)
{
	return need->routes4 <= have->routes4 && need->tbl8_4 <= have->tbl8_4 &&
	       need->routes6 <= have->routes6 && need->tbl8_6 <= have->tbl8_6;
}

/* ---- stable ids ----------------------------------------------------------- */

/* An ECMP set's content: its members in order (no padding: compared as bytes). */
struct ecmp_key {
	uint16_t nb;
	uint16_t nh[CFG_MAX_ECMP];
};

static struct idtab nh_ids = { .key_size = sizeof(struct fib_nh_key), .max = FIB_MAX_NEXTHOPS };
static struct idtab ecmp_ids = { .key_size = sizeof(struct ecmp_key), .max = FIB_MAX_ECMP };

int fib_nexthop_get(const struct fib_nh_key *k)
{
	bool created;

	return idtab_get(&nh_ids, k, &created);
}

int fib_ecmp_get(const uint16_t *nh, int nb)
{
	struct ecmp_key key;
	bool created;
	int id;

	if (nb < 2 || nb > CFG_MAX_ECMP)
		return -EINVAL;
	memset(&key, 0, sizeof(key));
	key.nb = (uint16_t)nb;
	memcpy(key.nh, nh, (size_t)nb * sizeof(*nh));
	id = idtab_get(&ecmp_ids, &key, &created);
	/* a new set keeps the members' references; an existing one has its own */
	if (id < 0 || !created)
		for (int i = 0; i < nb; i++)
			idtab_put(&nh_ids, nh[i]);
	return id;
}

void fib_value_put(uint32_t value)
{
	uint32_t idx = FIB_NH_INDEX(value);

	switch (FIB_NH_KIND(value)) {
	case FIB_KIND_NEXTHOP:
		idtab_put(&nh_ids, idx);
		break;
	case FIB_KIND_ECMP: {
		struct ecmp_key e;
		if (idx >= ecmp_ids.high || ecmp_ids.refs[idx] == 0)
			break;
		memcpy(&e, idtab_key(&ecmp_ids, idx), sizeof(e));
		if (idtab_put(&ecmp_ids, idx))
			for (int i = 0; i < e.nb; i++)
				idtab_put(&nh_ids, e.nh[i]);
		break;
	}
	default:
		break;
	}
}

uint32_t fib_nexthop_ids(void)
{
	return nh_ids.high;
}

uint32_t fib_ecmp_ids(void)
{
	return ecmp_ids.high;
}

bool fib_nexthop_key(uint32_t id, struct fib_nh_key *k)
{
	if (id >= nh_ids.high || nh_ids.refs[id] == 0)
		return false;
	memcpy(k, idtab_key(&nh_ids, id), sizeof(*k));
	return true;
}

bool fib_ecmp_members(uint32_t id, uint16_t *nb, uint16_t *nh)
{
	struct ecmp_key e;

	if (id >= ecmp_ids.high || ecmp_ids.refs[id] == 0)
		return false;
	memcpy(&e, idtab_key(&ecmp_ids, id), sizeof(e));
	*nb = e.nb;
	memcpy(nh, e.nh, sizeof(e.nh));
	return true;
}

uint32_t fib_nexthops_live(void)
{
	return nh_ids.live;
}

uint32_t fib_ecmp_live(void)
{
	return ecmp_ids.live;
}

void fib_value_hold(uint32_t value)
{
	uint32_t idx = FIB_NH_INDEX(value);
	struct idtab *t = FIB_NH_KIND(value) == FIB_KIND_NEXTHOP ? &nh_ids
			  : FIB_NH_KIND(value) == FIB_KIND_ECMP  ? &ecmp_ids
								 : NULL;

	if (t != NULL && idx < t->high && t->refs[idx] > 0)
		t->refs[idx]++;
}

uint32_t fib_nexthop_refs(uint32_t id)
{
	return id < nh_ids.high ? nh_ids.refs[id] : 0;
}

/* ---- the FIB objects ------------------------------------------------------ */

static void pair_confs(const struct fib_capacity *cap, struct rte_fib_conf *fc,
		       struct rte_fib6_conf *fc6)
{
	*fc = (struct rte_fib_conf){
		.type = RTE_FIB_DIR24_8,
		.default_nh = FIB_NH(FIB_KIND_NONE, 0),
		.max_routes = (int)RTE_MAX(cap->routes4, 1u),
		.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = RTE_MAX(cap->tbl8_4, 1u) },
	};
	*fc6 = (struct rte_fib6_conf){
		.type = RTE_FIB6_TRIE,
		.default_nh = FIB_NH(FIB_KIND_NONE, 0),
		.max_routes = (int)RTE_MAX(cap->routes6, 1u),
		.trie = { .nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = RTE_MAX(cap->tbl8_6, 1u) },
	};
}

struct fib_pair *fib_pair_create(const struct fib_capacity *cap, char *err, size_t errlen)
{
	static uint64_t created;
	struct rte_fib_conf fc;
	struct rte_fib6_conf fc6;
	struct fib_pair *p = calloc(1, sizeof(*p));
	char name[32];

	if (p == NULL) {
		snprintf(err, errlen, "out of memory creating the FIB");
		rte_errno = ENOMEM;
		return NULL;
	}
	p->id = ++created;
	p->cap = *cap;
	p->refs = 1;
	pair_confs(cap, &fc, &fc6);
	snprintf(name, sizeof(name), "fib4_%" PRIu64, p->id);
	p->fib = rte_fib_create(name, SOCKET_ID_ANY, &fc);
	if (p->fib == NULL) {
		snprintf(err, errlen,
			 "cannot create the FIB for %u IPv4 routes and %u tbl8 groups (%u MiB): %s",
			 cap->routes4, cap->tbl8_4, (unsigned)(fwd_fib_memsize(&fc, 0) >> 20),
			 rte_strerror(rte_errno));
		free(p);
		return NULL;
	}
	snprintf(name, sizeof(name), "fib6_%" PRIu64, p->id);
	p->fib6 = rte_fib6_create(name, SOCKET_ID_ANY, &fc6);
	if (p->fib6 == NULL) {
		snprintf(
			err, errlen,
			"cannot create the FIB6 for %u IPv6 routes and %u tbl8 groups (%u MiB): %s",
			cap->routes6, cap->tbl8_6, (unsigned)(fwd6_fib_memsize(&fc6, 0) >> 20),
			rte_strerror(rte_errno));
		rte_fib_free(p->fib);
		free(p);
		return NULL;
	}
	return p;
}

/* What fib_lookup4_one() expects of DPDK 22.11's struct dir24_8_tbl
 * (lib/fib/dir24_8.h, private): nh_sz at byte 12, def_nh at 16, the tbl8
 * pointer at 24, tbl24 from the first cache line boundary after. */
#define DIR24_8_NH_SZ_OFF  12
#define DIR24_8_DEF_NH_OFF 16
#define DIR24_8_TBL8_OFF   24
#define DIR24_8_TBL24_OFF  64

bool fib_pair_verify(struct fib_pair *p, const struct fib_table *t)
{
	const uint8_t *dp = rte_fib_get_dp(p->fib);
	uint32_t nh_sz;
	uint64_t def_nh;
	const uint32_t *tbl8;

	p->tbl24 = p->tbl8 = NULL;
	if (dp == NULL)
		return false;
	memcpy(&nh_sz, dp + DIR24_8_NH_SZ_OFF, 4);
	memcpy(&def_nh, dp + DIR24_8_DEF_NH_OFF, 8);
	memcpy(&tbl8, dp + DIR24_8_TBL8_OFF, sizeof(tbl8));
	if (nh_sz != RTE_FIB_DIR24_8_4B || def_nh != FIB_NH(FIB_KIND_NONE, 0) || tbl8 == NULL)
		return false;
	const uint32_t *tbl24 = (const uint32_t *)(dp + DIR24_8_TBL24_OFF);
	/* the addresses to compare: each entry's first and last, and a
	 * few that no entry may hold */
	uint32_t step = t->nb4 <= 4096 ? 1 : t->nb4 / 4096;
	uint32_t ips[64], k = 0;
	uint64_t want[64];
	static const uint32_t probes[] = { 0, 0x01020304, 0x7f000001, 0xc0000201, 0xffffffff };
	for (uint32_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		ips[k++] = probes[i];
	for (uint32_t i = 0;; i += step) {
		if (k + 2 > 64 || i >= t->nb4) {
			rte_fib_lookup_bulk(p->fib, ips, want, k);
			for (uint32_t j = 0; j < k; j++)
				if (fib_lookup4_one(tbl24, tbl8, ips[j]) != (uint32_t)want[j])
					return false;
			k = 0;
			if (i >= t->nb4)
				break;
		}
		const struct fib_route4 *r = &t->v4[i];
		ips[k++] = r->addr;
		ips[k++] = r->addr | (r->len == 0 ? ~0u : ~(~0u << (32 - r->len)));
	}
	p->tbl24 = tbl24;
	p->tbl8 = tbl8;
	return true;
}

void fib_pair_get(struct fib_pair *p)
{
	p->refs++;
}

void fib_pair_put(struct fib_pair *p)
{
	if (p == NULL || --p->refs > 0)
		return;
	rte_fib_free(p->fib);
	rte_fib6_free(p->fib6);
	free(p);
}

uint64_t fib_pair_memsize(const struct fib_capacity *cap, size_t page_size)
{
	struct rte_fib_conf fc;
	struct rte_fib6_conf fc6;

	pair_confs(cap, &fc, &fc6);
	return fwd_fib_memsize(&fc, page_size) + fwd6_fib_memsize(&fc6, page_size);
}

int fib_route_add4(struct fib_pair *p, uint32_t addr, uint8_t len, uint32_t value)
{
	return rte_fib_add(p->fib, addr, len, value);
}

int fib_route_del4(struct fib_pair *p, uint32_t addr, uint8_t len)
{
	return rte_fib_delete(p->fib, addr, len);
}

int fib_route_add6(struct fib_pair *p, const uint8_t *addr, uint8_t len, uint32_t value)
{
	return rte_fib6_add(p->fib6, addr, len, value);
}

int fib_route_del6(struct fib_pair *p, const uint8_t *addr, uint8_t len)
{
	return rte_fib6_delete(p->fib6, addr, len);
}

static void count(struct fib_apply_stats *s, int ret, uint32_t *what)
{
	if (ret == 0) {
		(*what)++;
		return;
	}
	s->failed++;
	if (s->first_error == 0)
		s->first_error = ret;
}

static const struct fib_overlay *overlay;
_Atomic bool fib_reload_running;

void fib_overlay_set(const struct fib_overlay *o)
{
	overlay = o;
}

const struct fib_overlay *fib_overlay_get(void)
{
	return overlay;
}

/* A prefix the new table drops: the overlay's route takes its place (one
 * store, no gap), or it goes. */
static void drop4(struct fib_pair *p, uint32_t table, const struct fib_route4 *r,
		  struct fib_apply_stats *s)
{
	uint32_t v;

	if (overlay != NULL && overlay->find4(table, r->addr, r->len, &v))
		count(s, fib_route_add4(p, r->addr, r->len, v), &s->changed);
	else
		count(s, fib_route_del4(p, r->addr, r->len), &s->deleted);
}

static void drop6(struct fib_pair *p, uint32_t table, const struct fib_route6 *r,
		  struct fib_apply_stats *s)
{
	uint32_t v;

	if (overlay != NULL && overlay->find6(table, r->addr, r->len, &v))
		count(s, fib_route_add6(p, r->addr, r->len, v), &s->changed);
	else
		count(s, fib_route_del6(p, r->addr, r->len), &s->deleted);
}

int fib_apply(struct fib_pair *p, const struct fib_table *old, const struct fib_table *new,
	      struct fib_apply_stats *stats)
{
	struct fib_apply_stats s = { 0 };
	uint32_t i, j;

	/* pass 1: deletions (in old, not in new) */
	for (i = 0, j = 0; i < old->nb4; i++) {
		uint64_t k = key4(&old->v4[i]);
		while (j < new->nb4 && key4(&new->v4[j]) < k)
			j++;
		if (j < new->nb4 && key4(&new->v4[j]) == k)
			continue;
		drop4(p, new->table, &old->v4[i], &s);
	}
	for (i = 0, j = 0; i < old->nb6; i++) {
		while (j < new->nb6 && cmp6_route(&new->v6[j], &old->v6[i]) < 0)
			j++;
		if (j < new->nb6 && cmp6_route(&new->v6[j], &old->v6[i]) == 0)
			continue;
		drop6(p, new->table, &old->v6[i], &s);
	}
	/* pass 2: additions and changed values (one store per FIB entry: no gap) */
	for (i = 0, j = 0; j < new->nb4; j++) {
		uint64_t k = key4(&new->v4[j]);
		while (i < old->nb4 && key4(&old->v4[i]) < k)
			i++;
		bool had = i < old->nb4 && key4(&old->v4[i]) == k;
		if (had && old->v4[i].value == new->v4[j].value)
			continue;
		count(&s, fib_route_add4(p, new->v4[j].addr, new->v4[j].len, new->v4[j].value),
		      had ? &s.changed : &s.added);
	}
	for (i = 0, j = 0; j < new->nb6; j++) {
		while (i < old->nb6 && cmp6_route(&old->v6[i], &new->v6[j]) < 0)
			i++;
		bool had = i < old->nb6 && cmp6_route(&old->v6[i], &new->v6[j]) == 0;
		if (had && old->v6[i].value == new->v6[j].value)
			continue;
		count(&s, fib_route_add6(p, new->v6[j].addr, new->v6[j].len, new->v6[j].value),
		      had ? &s.changed : &s.added);
	}
	if (stats != NULL)
		*stats = s;
	return s.first_error;
}
