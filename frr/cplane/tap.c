/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP devices for vbrd's L3 interfaces: /dev/net/tun for the device and
 * its frames, rtnetlink (libmnl) for everything the kernel keeps about it.
 * See tap.h and frr/cplane/README.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "frr/cplane/tap.h"

#define TAP_NL_BUF     32768 /* bytes: a dump's replies come in messages of up to 32 KiB */
#define TAP_NL_TIMEOUT 2     /* seconds to wait for the kernel's answer to a request */
#define TAP_MTU_MIN    68    /* ETH_MIN_MTU */
#define TAP_MTU_MAX    65521 /* the tun driver's: 65535 - the Ethernet header */
#define TAP_MTU_IPV6   1280  /* RFC 8200 §5: below it the kernel turns IPv6 off */

struct cp_tap {
	const char *kind;      /* "tap", or "vrf" for a VRF device (struct cp_vrf) */
	int fd;                /* /dev/net/tun, attached to the TAP; -1 for a VRF device */
	struct mnl_socket *nl; /* rtnetlink, in the TAP's namespace */
	uint32_t portid;
	uint32_t seq;
	int ifindex;
	uint32_t mtu;
	uint8_t mac[6];
	char name[IFNAMSIZ];
	char netns[CP_TAP_NETNS_MAX];
	char *buf; /* TAP_NL_BUF bytes for requests and replies */
};

void cp_tap_link_local6(const uint8_t mac[6], uint8_t out[16])
{
	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	out[8] = mac[0] ^ 0x02; /* the universal/local bit, inverted (RFC 4291 §2.5.1) */
	out[9] = mac[1];
	out[10] = mac[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = mac[3];
	out[14] = mac[4];
	out[15] = mac[5];
}

/* ---- messages ---- */

/* "tap NAME (netns NS): what" into @p err. */
__attribute__((format(printf, 4, 5))) static void fail(const struct cp_tap *t, char *err,
						       size_t errlen, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (err == NULL || errlen == 0)
		return;
	if (t->netns[0])
		snprintf(err, errlen, "%s %s (netns %s): %s", t->kind, t->name, t->netns, what);
	else
		snprintf(err, errlen, "%s %s: %s", t->kind, t->name, what);
}

static const char *addr_str(const struct cfg_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (p->addr.family == AF_INET) {
		uint32_t v4 = htonl(p->addr.v4);

		inet_ntop(AF_INET, &v4, a, sizeof(a));
	} else {
		inet_ntop(AF_INET6, p->addr.v6, a, sizeof(a));
	}
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

/* ---- rtnetlink ---- */

typedef int (*nl_cb)(const struct nlmsghdr *nlh, void *data);

struct nl_ack_text {
	const char *msg; /* the kernel's extended ACK message (NLMSGERR_ATTR_MSG) */
};

static int ack_attr(const struct nlattr *a, void *data)
{
	struct nl_ack_text *x = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		x->msg = mnl_attr_get_str(a);
	return MNL_CB_OK;
}

/* The error of an NLMSG_ERROR (0: an ACK), and the kernel's text if it gave one. */
static int nl_ack(const struct nlmsghdr *nlh, char *text, size_t textlen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct nl_ack_text x = { NULL };
	unsigned off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EBADMSG;
	/* RFC 3549 has no extended ACK: Linux appends the TLVs after the
	 * request it echoes, or after its header alone (NLM_F_CAPPED). */
	if (e->error != 0 && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (off < mnl_nlmsg_get_payload_len(nlh))
			mnl_attr_parse(nlh, off, ack_attr, &x);
	}
	if (x.msg != NULL)
		snprintf(text, textlen, " (kernel: %s)", x.msg);
	return e->error;
}

/*
 * Send the request in t->buf and read the answers: data messages go to
 * @p cb, the request's ACK or a dump's NLMSG_DONE ends it. @p text receives
 * the kernel's extended ACK message on an error, "" otherwise.
 */
static int nl_talk(struct cp_tap *t, nl_cb cb, void *data, char *text, size_t textlen)
{
	struct nlmsghdr *req = (struct nlmsghdr *)t->buf;
	uint32_t seq = ++t->seq;
	/* A dump is an RTM_GET* (types 2 mod 4) with both bits of NLM_F_DUMP:
	 * one of them is also NLM_F_EXCL, which RTM_NEW* requests carry. */
	bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP && (req->nlmsg_type & 3) == 2;
	int rc = 0;

	text[0] = '\0';
	req->nlmsg_seq = seq;
	if (!dump)
		req->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(t->nl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(t->nl, t->buf, TAP_NL_BUF);
		int len = (int)n;

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		for (const struct nlmsghdr *h = (const struct nlmsghdr *)t->buf;
		     mnl_nlmsg_ok(h, len); h = mnl_nlmsg_next(h, &len)) {
			if (h->nlmsg_seq != seq || h->nlmsg_pid != t->portid)
				continue; /* the late answer to a request that timed out */
			if (h->nlmsg_type == NLMSG_ERROR)
				return nl_ack(h, text, textlen);
			if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump's end carries its error, if any (an int). */
				if (mnl_nlmsg_get_payload_len(h) >= sizeof(int))
					rc = *(const int *)mnl_nlmsg_get_payload(h);
				return rc;
			}
			if (cb != NULL && rc == 0)
				rc = cb(h, data);
		}
	}
}

static struct nlmsghdr *nl_start(struct cp_tap *t, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(t->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

static struct ifinfomsg *nl_link(struct cp_tap *t, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = nl_start(t, type, flags);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = t->ifindex;
	return ifi;
}

/* ---- links ---- */

/* What RTM_GETLINK says about a device of a name. */
struct link_info {
	int ifindex;
	int master;       /* IFLA_MASTER: the device it is enslaved to, 0 for none */
	char kind[16];    /* IFLA_INFO_KIND: "tun", "veth", ...; "" for none */
	uint8_t tun_type; /* IFF_TUN or IFF_TAP */
	uint32_t table;   /* IFLA_VRF_TABLE of a "vrf" */
};

/* IFLA_INFO_DATA: the kernel puts IFLA_INFO_KIND before it, so the kind says how to read it. */
static int info_data_attr(const struct nlattr *a, void *data)
{
	struct link_info *li = data;

	if (strcmp(li->kind, "tun") == 0 && mnl_attr_get_type(a) == IFLA_TUN_TYPE &&
	    mnl_attr_validate(a, MNL_TYPE_U8) == 0)
		li->tun_type = mnl_attr_get_u8(a);
	else if (strcmp(li->kind, "vrf") == 0 && mnl_attr_get_type(a) == IFLA_VRF_TABLE &&
		 mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		li->table = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int linkinfo_attr(const struct nlattr *a, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND && mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
		snprintf(li->kind, sizeof(li->kind), "%.*s", (int)mnl_attr_get_payload_len(a),
			 (const char *)mnl_attr_get_payload(a));
	else if (mnl_attr_get_type(a) == IFLA_INFO_DATA &&
		 mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, info_data_attr, li);
	return MNL_CB_OK;
}

static int link_attr(const struct nlattr *a, void *data)
{
	struct link_info *li = data;

	if (mnl_attr_get_type(a) == IFLA_LINKINFO && mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
		mnl_attr_parse_nested(a, linkinfo_attr, data);
	else if (mnl_attr_get_type(a) == IFLA_MASTER && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		li->master = (int)mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int link_msg(const struct nlmsghdr *nlh, void *data)
{
	struct link_info *li = data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	li->ifindex = ifi->ifi_index;
	mnl_attr_parse(nlh, sizeof(*ifi), link_attr, li);
	return 0;
}

/* The device named t->name in the TAP's namespace: 0, -ENODEV, or an error. */
static int link_get(struct cp_tap *t, struct link_info *li)
{
	char text[256];
	struct ifinfomsg *ifi = nl_link(t, RTM_GETLINK, 0);
	struct nlmsghdr *nlh = (struct nlmsghdr *)t->buf;

	ifi->ifi_index = 0;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, t->name);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	memset(li, 0, sizeof(*li));
	return nl_talk(t, link_msg, li, text, sizeof(text));
}

/* Change the flags in @p mask to @p flags (RTM_NEWLINK, ifi_change). */
static int link_flags(struct cp_tap *t, unsigned flags, unsigned mask, const char *what, char *err,
		      size_t errlen)
{
	char text[256];
	struct ifinfomsg *ifi = nl_link(t, RTM_NEWLINK, 0);
	int rc;

	ifi->ifi_flags = flags;
	ifi->ifi_change = mask;
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc < 0)
		fail(t, err, errlen, "%s: %s%s", what, strerror(-rc), text);
	return rc;
}

static int link_set_mac(struct cp_tap *t, char *err, size_t errlen)
{
	char text[256];
	int rc;

	nl_link(t, RTM_NEWLINK, 0);
	mnl_attr_put((struct nlmsghdr *)t->buf, IFLA_ADDRESS, 6, t->mac);
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc < 0)
		fail(t, err, errlen, "set MAC %02x:%02x:%02x:%02x:%02x:%02x: %s%s", t->mac[0],
		     t->mac[1], t->mac[2], t->mac[3], t->mac[4], t->mac[5], strerror(-rc), text);
	return rc;
}

static int link_set_mtu(struct cp_tap *t, uint32_t mtu, char *err, size_t errlen)
{
	char text[256];
	int rc;

	nl_link(t, RTM_NEWLINK, 0);
	mnl_attr_put_u32((struct nlmsghdr *)t->buf, IFLA_MTU, mtu);
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc < 0)
		fail(t, err, errlen, "set MTU %u: %s%s", mtu, strerror(-rc), text);
	return rc;
}

/*
 * IPv6 link-local by EUI-64 (IN6_ADDR_GEN_MODE_EUI64) on this link, whatever
 * the namespace's net.ipv6.conf.default.addr_gen_mode says (stable-privacy
 * or random would give an address vbrd does not answer for). -EAFNOSUPPORT
 * when the link has no IPv6 (MTU below 1280, or IPv6 disabled).
 */
static int link_set_eui64(struct cp_tap *t, char *err, size_t errlen)
{
	struct nlmsghdr *nlh;
	struct nlattr *spec, *in6;
	char text[256];
	int rc;

	nl_link(t, RTM_NEWLINK, 0);
	nlh = (struct nlmsghdr *)t->buf;
	spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	in6 = mnl_attr_nest_start(nlh, AF_INET6);
	mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE, IN6_ADDR_GEN_MODE_EUI64);
	mnl_attr_nest_end(nlh, in6);
	mnl_attr_nest_end(nlh, spec);
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc < 0 && rc != -EAFNOSUPPORT)
		fail(t, err, errlen, "set IPv6 addr_gen_mode eui64: %s%s", strerror(-rc), text);
	return rc;
}

/* ---- namespaces ---- */

/*
 * Enter the namespace /run/netns/NAME on this thread; *@p back receives an
 * fd of the thread's own. The tun device and a netlink socket belong to
 * the namespace they are opened in, for their whole life.
 */
static int netns_enter(const struct cp_tap *t, int *back, char *err, size_t errlen)
{
	char path[sizeof("/run/netns/") + CP_TAP_NETNS_MAX];
	int fd, rc;

	/* The thread's, not the process's: setns() is per thread, and
	 * /proc/self is the main thread's. */
	*back = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*back < 0) {
		rc = -errno;
		fail(t, err, errlen, "open /proc/thread-self/ns/net: %s", strerror(-rc));
		return rc;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", t->netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			fail(t, err, errlen,
			     "no network namespace '%s' (%s does not exist; `ip netns add %s` "
			     "makes it)",
			     t->netns, path, t->netns);
		else
			fail(t, err, errlen, "open %s: %s", path, strerror(-rc));
		goto fail;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		rc = -errno;
		if (rc == -EINVAL)
			fail(t, err, errlen,
			     "%s is not a network namespace (a file left by a failed `ip netns`?)",
			     path);
		else
			fail(t, err, errlen, "setns %s: %s", path, strerror(-rc));
		close(fd);
		goto fail;
	}
	close(fd);
	return 0;
fail:
	close(*back);
	*back = -1;
	return rc;
}

static void netns_leave(int back)
{
	/*
	 * Returning to a namespace we hold an fd of cannot fail but for lack
	 * of memory; a thread left in another namespace would open every
	 * later socket there, silently. Stop rather than run on like that.
	 */
	if (setns(back, CLONE_NEWNET) < 0) {
		fprintf(stderr, "tap: cannot return to the thread's network namespace: %s\n",
			strerror(errno));
		abort();
	}
	close(back);
}

/* ---- the TAP ---- */

/* The tun fd and the netlink socket, in the TAP's namespace. */
static int open_fds(struct cp_tap *t, char *err, size_t errlen)
{
	int back = -1, rc = 0, one = 1;
	struct timeval tmo = { .tv_sec = TAP_NL_TIMEOUT };

	if (t->netns[0] && (rc = netns_enter(t, &back, err, errlen)) < 0)
		return rc;
	if (strcmp(t->kind, "tap") == 0)
		t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (strcmp(t->kind, "tap") == 0 && t->fd < 0) {
		rc = -errno;
		fail(t, err, errlen, "open /dev/net/tun: %s%s", strerror(-rc),
		     rc == -ENOENT ? " (modprobe tun?)" : "");
		goto out;
	}
	t->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (t->nl == NULL || mnl_socket_bind(t->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		fail(t, err, errlen, "rtnetlink socket: %s", strerror(-rc));
		goto out;
	}
out:
	if (back >= 0)
		netns_leave(back);
	if (rc < 0)
		return rc;
	t->portid = mnl_socket_get_portid(t->nl);
	/* Extended ACKs: the kernel says why it refused, and which attribute. */
	mnl_socket_setsockopt(t->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(t->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Strict checks (Linux 4.20): the kernel filters an address dump by
	 * the ifindex of the request, so that listing one TAP's addresses
	 * does not walk every address of a namespace with thousands. */
	mnl_socket_setsockopt(t->nl, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	/* The kernel answers rtnetlink in the sender's context; a timeout
	 * only guards the main loop against the unforeseen. */
	setsockopt(mnl_socket_get_fd(t->nl), SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	return 0;
}

/*
 * What is already there under our name decides: nothing (make it), a TAP
 * (take it over if it is persistent and held by no one: TUNSETIFF says,
 * rtnetlink counts the fds of multi-queue TAPs only), anything else (an
 * error that says what it is).
 */
static int check_existing(struct cp_tap *t, bool *existed, char *err, size_t errlen)
{
	struct link_info li;
	int rc = link_get(t, &li);

	*existed = false;
	if (rc == -ENODEV)
		return 0;
	if (rc < 0) {
		fail(t, err, errlen, "look up the device: %s", strerror(-rc));
		return rc;
	}
	*existed = true;
	if (strcmp(li.kind, "tun") != 0) {
		fail(t, err, errlen,
		     "a device of that name exists and is not a TAP (kind '%s'): vbrd does not "
		     "replace it; remove it or change the TAP name prefix",
		     li.kind[0] ? li.kind : "none");
		return -EEXIST;
	}
	if (li.tun_type != IFF_TAP) {
		fail(t, err, errlen,
		     "a TUN (layer 3) device of that name exists: vbrd needs a TAP; remove it "
		     "(`ip tuntap del dev %s mode tun`)",
		     t->name);
		return -EEXIST;
	}
	return 0;
}

static int tun_attach(struct cp_tap *t, char *err, size_t errlen)
{
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->name);
	/* Born without carrier (IFF_NO_CARRIER, Linux 6.0): cp_tap_open() sets
	 * the line's, and a carrier that comes on is an event, which moves
	 * the operstate from UNKNOWN to UP. */
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NO_CARRIER;
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		rc = -errno;
		if (rc == -EBUSY)
			fail(t, err, errlen,
			     "TUNSETIFF: a TAP of that name is in use (another vbrd with the same "
			     "TAP name prefix and namespace?)");
		else if (rc == -EINVAL)
			fail(t, err, errlen,
			     "TUNSETIFF: a device of that name exists with other settings "
			     "(multi-queue, vnet header?): remove it (`ip tuntap del dev %s mode "
			     "tap`)",
			     t->name);
		else if (rc == -EPERM)
			fail(t, err, errlen, "TUNSETIFF: %s (needs CAP_NET_ADMIN)", strerror(-rc));
		else
			fail(t, err, errlen, "TUNSETIFF: %s", strerror(-rc));
		return rc;
	}
	/* Taken over a persistent TAP: ours now, gone when we close it. */
	if (ioctl(t->fd, TUNGETIFF, &ifr) == 0 && (ifr.ifr_flags & IFF_PERSIST) &&
	    ioctl(t->fd, TUNSETPERSIST, 0) < 0) {
		rc = -errno;
		fail(t, err, errlen, "TUNSETPERSIST 0: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

static bool mac_ok(const uint8_t m[6])
{
	static const uint8_t zero[6];

	return !(m[0] & 1) && memcmp(m, zero, 6) != 0;
}

int cp_tap_open(const struct cp_tap_cfg *cfg, struct cp_tap **out, char *err, size_t errlen)
{
	struct link_info li;
	struct cp_tap *t;
	bool existed;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->kind = "tap";
	t->fd = -1;
	snprintf(t->name, sizeof(t->name), "%s", cfg->name);
	snprintf(t->netns, sizeof(t->netns), "%s", cfg->netns);
	memcpy(t->mac, cfg->mac, 6);
	t->mtu = cfg->mtu;
	/* dev_valid_name(): 1..15 bytes, no '/', ':' or white space, not . or .. */
	if (cfg->name[0] == '\0' || strnlen(cfg->name, IFNAMSIZ) >= IFNAMSIZ ||
	    strpbrk(cfg->name, "/: \t\n\r\v\f") != NULL || strcmp(cfg->name, ".") == 0 ||
	    strcmp(cfg->name, "..") == 0) {
		rc = -EINVAL;
		fail(t, err, errlen, "not a valid device name");
		goto fail;
	}
	if (strnlen(cfg->netns, CP_TAP_NETNS_MAX) >= CP_TAP_NETNS_MAX || strchr(cfg->netns, '/') ||
	    strcmp(cfg->netns, ".") == 0 || strcmp(cfg->netns, "..") == 0) {
		rc = -EINVAL;
		fail(t, err, errlen, "not a valid namespace name");
		goto fail;
	}
	if (!mac_ok(cfg->mac)) {
		rc = -EINVAL;
		fail(t, err, errlen, "the MAC must be unicast and not zero");
		goto fail;
	}
	if (cfg->mtu < TAP_MTU_MIN || cfg->mtu > TAP_MTU_MAX) {
		rc = -EINVAL;
		fail(t, err, errlen, "MTU %u is out of range %u..%u", cfg->mtu, TAP_MTU_MIN,
		     TAP_MTU_MAX);
		goto fail;
	}
	t->buf = malloc(TAP_NL_BUF);
	if (t->buf == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = open_fds(t, err, errlen);
	if (rc < 0)
		goto fail;
	rc = check_existing(t, &existed, err, errlen);
	if (rc < 0)
		goto fail;
	rc = tun_attach(t, err, errlen);
	if (rc < 0)
		goto fail;
	rc = link_get(t, &li);
	if (rc < 0) {
		fail(t, err, errlen, "look up the new TAP: %s", strerror(-rc));
		goto fail;
	}
	t->ifindex = li.ifindex;
	/* A TAP taken over may be up, its link-local from another MAC: down
	 * flushes the IPv6 addresses, up makes the link-local again. */
	if (existed && (rc = link_flags(t, 0, IFF_UP, "set down", err, errlen)) < 0)
		goto fail;
	rc = cp_tap_set_carrier(t, cfg->carrier, err, errlen);
	if (rc < 0)
		goto fail;
	rc = link_set_mac(t, err, errlen);
	if (rc < 0)
		goto fail;
	/* The mode before the MTU: below 1280 the link has no IPv6 to set it on. */
	rc = link_set_eui64(t, err, errlen);
	if (rc < 0 && rc != -EAFNOSUPPORT)
		goto fail;
	rc = link_set_mtu(t, cfg->mtu, err, errlen);
	if (rc < 0)
		goto fail;
	/* vbrd answers ARP and ND (and does DAD's part) itself. */
	rc = link_flags(t, IFF_NOARP, IFF_NOARP, "set NOARP", err, errlen);
	if (rc < 0)
		goto fail;
	rc = link_flags(t, IFF_UP, IFF_UP, "set up", err, errlen);
	if (rc < 0)
		goto fail;
	*out = t;
	return 0;
fail:
	cp_tap_close(t);
	return rc;
}

/* The fds and the buffer of a TAP or a VRF device (not the struct). */
static void link_release(struct cp_tap *t)
{
	if (t->fd >= 0)
		close(t->fd); /* not persistent: the kernel removes the TAP */
	if (t->nl != NULL)
		mnl_socket_close(t->nl);
	free(t->buf);
	t->fd = -1;
	t->nl = NULL;
	t->buf = NULL;
}

void cp_tap_close(struct cp_tap *t)
{
	if (t == NULL)
		return;
	link_release(t);
	free(t);
}

int cp_tap_fd(const struct cp_tap *t)
{
	return t->fd;
}

int cp_tap_ifindex(const struct cp_tap *t)
{
	return t->ifindex;
}

const char *cp_tap_ifname(const struct cp_tap *t)
{
	return t->name;
}

const char *cp_tap_netns(const struct cp_tap *t)
{
	return t->netns;
}

int cp_tap_set_carrier(struct cp_tap *t, bool up, char *err, size_t errlen)
{
	int on = up;

	if (ioctl(t->fd, TUNSETCARRIER, &on) < 0) {
		int rc = -errno;

		fail(t, err, errlen, "TUNSETCARRIER %d: %s", on, strerror(-rc));
		return rc;
	}
	return 0;
}

/* ---- addresses ---- */

struct addr_dump {
	int ifindex;
	struct cfg_prefix *out;
	unsigned cap;
	unsigned n;
};

static int addr_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type == IFA_ADDRESS || type == IFA_LOCAL)
		tb[type] = a;
	return MNL_CB_OK;
}

static int addr_msg(const struct nlmsghdr *nlh, void *data)
{
	struct addr_dump *d = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFA_MAX + 1] = { NULL };
	const struct nlattr *a;
	struct cfg_prefix p;

	if (nlh->nlmsg_type != RTM_NEWADDR || (int)ifa->ifa_index != d->ifindex)
		return 0;
	mnl_attr_parse(nlh, sizeof(*ifa), addr_attr, tb);
	memset(&p, 0, sizeof(p));
	p.len = ifa->ifa_prefixlen;
	if (ifa->ifa_family == AF_INET) {
		uint32_t v4;

		/* IFA_LOCAL is the address; IFA_ADDRESS the peer's on a point-to-point link. */
		a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
		if (a == NULL || mnl_attr_get_payload_len(a) != 4)
			return 0;
		memcpy(&v4, mnl_attr_get_payload(a), 4);
		p.addr.family = AF_INET;
		p.addr.v4 = ntohl(v4);
	} else if (ifa->ifa_family == AF_INET6) {
		a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
		if (a == NULL || mnl_attr_get_payload_len(a) != 16)
			return 0;
		p.addr.family = AF_INET6;
		memcpy(p.addr.v6, mnl_attr_get_payload(a), 16);
	} else {
		return 0;
	}
	if (d->n < d->cap)
		d->out[d->n] = p;
	d->n++;
	return 0;
}

int cp_tap_get_addrs(struct cp_tap *t, struct cfg_prefix *out, unsigned cap)
{
	struct addr_dump d = { .ifindex = t->ifindex, .out = out, .cap = cap };
	char text[256];
	struct nlmsghdr *nlh = nl_start(t, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	int rc;

	ifa->ifa_family = AF_UNSPEC;
	ifa->ifa_index = t->ifindex; /* filtered by the kernel (strict checks), and by addr_msg() */
	rc = nl_talk(t, addr_msg, &d, text, sizeof(text));
	return rc < 0 ? rc : (int)d.n;
}

static bool prefix_eq(const struct cfg_prefix *a, const struct cfg_prefix *b)
{
	if (a->addr.family != b->addr.family || a->len != b->len)
		return false;
	return a->addr.family == AF_INET ? a->addr.v4 == b->addr.v4
					 : memcmp(a->addr.v6, b->addr.v6, 16) == 0;
}

static bool is_link_local6(const struct cfg_prefix *p)
{
	return p->addr.family == AF_INET6 && p->addr.v6[0] == 0xfe &&
	       (p->addr.v6[1] & 0xc0) == 0x80;
}

static bool in_set(const struct cfg_prefix *p, const struct cfg_prefix *set, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (prefix_eq(p, &set[i]))
			return true;
	return false;
}

/* RTM_NEWADDR (@p add) or RTM_DELADDR of @p p on the TAP. */
static int addr_change(struct cp_tap *t, const struct cfg_prefix *p, bool add, char *err,
		       size_t errlen)
{
	struct nlmsghdr *nlh = nl_start(t, add ? RTM_NEWADDR : RTM_DELADDR,
					add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	char text[256], a[INET6_ADDRSTRLEN + 4];
	int rc;

	ifa->ifa_family = p->addr.family;
	ifa->ifa_prefixlen = p->len;
	ifa->ifa_index = t->ifindex;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	if (p->addr.family == AF_INET) {
		uint32_t v4 = htonl(p->addr.v4);

		mnl_attr_put(nlh, IFA_LOCAL, 4, &v4);
		mnl_attr_put(nlh, IFA_ADDRESS, 4, &v4);
		/* The directed broadcast of the subnet (`ip addr add ... brd +`);
		 * /31 (RFC 3021) and /32 have none. */
		if (add && p->len <= 30) {
			uint32_t brd = htonl(p->addr.v4 | (0xffffffffu >> p->len));

			mnl_attr_put(nlh, IFA_BROADCAST, 4, &brd);
		}
	} else {
		mnl_attr_put(nlh, IFA_ADDRESS, 16, p->addr.v6);
		if (add) {
			/* vbrd defends the address on the line (ND): no DAD here. */
			ifa->ifa_flags = IFA_F_NODAD;
			mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
		}
	}
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (add && rc == -EEXIST)
		rc = 0;
	if (!add && rc == -EADDRNOTAVAIL)
		rc = 0; /* gone with the primary it was a secondary of */
	if (rc < 0)
		fail(t, err, errlen, "%s address %s: %s%s", add ? "add" : "remove",
		     addr_str(p, a, sizeof(a)), strerror(-rc), text);
	return rc;
}

static bool prefix_ok(const struct cfg_prefix *p)
{
	if (p->addr.family == AF_INET)
		return p->len <= 32;
	return p->addr.family == AF_INET6 && p->len <= 128;
}

/* The TAP's addresses now, in a malloc'ed array *@p out: their number, or an error. */
static int addrs_now(struct cp_tap *t, struct cfg_prefix **out, char *err, size_t errlen)
{
	unsigned cap = 16;
	int n;

	for (;;) {
		*out = malloc(cap * sizeof(**out));
		if (*out == NULL)
			return -ENOMEM;
		n = cp_tap_get_addrs(t, *out, cap);
		if (n >= 0 && (unsigned)n <= cap)
			return n;
		free(*out);
		*out = NULL;
		if (n < 0) {
			fail(t, err, errlen, "list addresses: %s", strerror(-n));
			return n;
		}
		cap = (unsigned)n + 16; /* more than we thought: again, with room */
	}
}

int cp_tap_set_addrs(struct cp_tap *t, const struct cfg_prefix *addrs, unsigned n, char *err,
		     size_t errlen)
{
	struct cfg_prefix *have;
	char a[INET6_ADDRSTRLEN + 4];
	int nh, rc = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!prefix_ok(&addrs[i])) {
			fail(t, err, errlen, "address %u: bad family or prefix length", i);
			return -EINVAL;
		}
		if (is_link_local6(&addrs[i])) {
			fail(t, err, errlen,
			     "address %s: link-local addresses are the kernel's (EUI-64 of the "
			     "MAC)",
			     addr_str(&addrs[i], a, sizeof(a)));
			return -EINVAL;
		}
	}
	/* Removals first: an address moving to another prefix length is one
	 * removal and one addition. */
	nh = addrs_now(t, &have, err, errlen);
	if (nh < 0)
		return nh;
	for (int i = 0; i < nh && rc == 0; i++)
		if (!is_link_local6(&have[i]) && !in_set(&have[i], addrs, n))
			rc = addr_change(t, &have[i], false, err, errlen);
	free(have);
	if (rc < 0)
		return rc;
	/* Listed again: removing an IPv4 primary address also removes its
	 * secondaries (net.ipv4.conf.*.promote_secondaries = 0, the kernel's
	 * default in a new namespace), some of which may be wanted. */
	nh = addrs_now(t, &have, err, errlen);
	if (nh < 0)
		return nh;
	for (unsigned i = 0; i < n && rc == 0; i++)
		if (!in_set(&addrs[i], have, (unsigned)nh) && !in_set(&addrs[i], addrs, i))
			rc = addr_change(t, &addrs[i], true, err, errlen);
	free(have);
	return rc;
}

/* ---- MTU ---- */

/* The link's fe80::/10 address is the EUI-64 one, or it has none (yet). */
static int link_local_is_eui64(struct cp_tap *t, bool *ok, char *err, size_t errlen)
{
	struct cfg_prefix *have;
	uint8_t ll[16];
	int n;

	n = addrs_now(t, &have, err, errlen);
	if (n < 0)
		return n;
	cp_tap_link_local6(t->mac, ll);
	*ok = true;
	for (int i = 0; i < n; i++)
		if (is_link_local6(&have[i]) && memcmp(have[i].addr.v6, ll, 16) != 0)
			*ok = false;
	free(have);
	return 0;
}

int cp_tap_set_mtu(struct cp_tap *t, uint32_t mtu, char *err, size_t errlen)
{
	bool ipv6_back = t->mtu < TAP_MTU_IPV6 && mtu >= TAP_MTU_IPV6;
	bool ok;
	int rc;

	if (mtu < TAP_MTU_MIN || mtu > TAP_MTU_MAX) {
		fail(t, err, errlen, "MTU %u is out of range %u..%u", mtu, TAP_MTU_MIN,
		     TAP_MTU_MAX);
		return -EINVAL;
	}
	rc = link_set_mtu(t, mtu, err, errlen);
	if (rc < 0)
		return rc;
	t->mtu = mtu;
	if (!ipv6_back)
		return 0;
	/*
	 * Below 1280 the kernel dropped the link's IPv6 state, its
	 * addr_gen_mode with it; back above, it made a new one with the
	 * namespace's default mode and, carrier on, a link-local by it. Set
	 * EUI-64 again, and if the link-local is another, down and up make it
	 * again (the link has no other IPv6 address to lose yet).
	 */
	rc = link_set_eui64(t, err, errlen);
	if (rc == -EAFNOSUPPORT)
		return 0; /* IPv6 disabled in the namespace */
	if (rc < 0)
		return rc;
	rc = link_local_is_eui64(t, &ok, err, errlen);
	if (rc < 0 || ok)
		return rc;
	rc = link_flags(t, 0, IFF_UP, "set down", err, errlen);
	if (rc == 0)
		rc = link_flags(t, IFF_UP, IFF_UP, "set up", err, errlen);
	return rc;
}

/* ---- frames ---- */

ssize_t cp_tap_write(struct cp_tap *t, const void *frame, size_t len)
{
	ssize_t n = write(t->fd, frame, len);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

ssize_t cp_tap_read(struct cp_tap *t, void *buf, size_t cap)
{
	ssize_t n = read(t->fd, buf, cap);

	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n;
}

/* ---- VRF devices and enslaving ---- */

struct cp_vrf {
	struct cp_tap link; /* first: kind "vrf", no tun fd; its netlink socket and name */
	uint32_t table;
};

struct nlmsghdr *cp_vrf_msg_new(void *buf, const char *name, uint32_t table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct nlattr *info, *data;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_flags = IFF_UP; /* `ip link add NAME up type vrf table N` */
	ifi->ifi_change = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "vrf");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u32(nlh, IFLA_VRF_TABLE, table);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nlh;
}

struct nlmsghdr *cp_tap_msg_master(void *buf, int ifindex, int master)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
	return nlh;
}

/* RTM_DELLINK of the device t->ifindex. */
static int link_del(struct cp_tap *t, char *err, size_t errlen)
{
	char text[256];
	int rc;

	nl_link(t, RTM_DELLINK, 0);
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc == -ENODEV)
		rc = 0; /* gone already (someone deleted it) */
	if (rc < 0)
		fail(t, err, errlen, "delete: %s%s", strerror(-rc), text);
	return rc;
}

int cp_vrf_open(const char *name, const char *netns, uint32_t table, struct cp_vrf **out, char *err,
		size_t errlen)
{
	struct link_info li;
	struct cp_vrf *v;
	struct cp_tap *t;
	char text[256];
	int rc;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	t = &v->link;
	t->kind = "vrf";
	t->fd = -1;
	v->table = table;
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->netns, sizeof(t->netns), "%s", netns ? netns : "");
	if (name[0] == '\0' || strnlen(name, IFNAMSIZ) >= IFNAMSIZ ||
	    strpbrk(name, "/: \t\n\r\v\f") != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || table == 0) {
		rc = -EINVAL;
		fail(t, err, errlen, "not a valid device name, or table 0");
		goto fail;
	}
	if (netns != NULL &&
	    (strnlen(netns, CP_TAP_NETNS_MAX) >= CP_TAP_NETNS_MAX || strchr(netns, '/') ||
	     strcmp(netns, ".") == 0 || strcmp(netns, "..") == 0)) {
		rc = -EINVAL;
		fail(t, err, errlen, "not a valid namespace name");
		goto fail;
	}
	t->buf = malloc(TAP_NL_BUF);
	if (t->buf == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = open_fds(t, err, errlen);
	if (rc < 0)
		goto fail;
	/* One left by a vbrd that was killed (a VRF device outlives its
	 * maker): taken over with its table, made anew with another. */
	rc = link_get(t, &li);
	if (rc < 0 && rc != -ENODEV) {
		fail(t, err, errlen, "look up the device: %s", strerror(-rc));
		goto fail;
	}
	if (rc == 0 && strcmp(li.kind, "vrf") != 0) {
		rc = -EEXIST;
		fail(t, err, errlen,
		     "a device of that name exists and is not a VRF (kind '%s'): vbrd does not "
		     "replace it; remove it or rename the VRF",
		     li.kind[0] ? li.kind : "none");
		goto fail;
	}
	if (rc == 0 && li.table != table) {
		t->ifindex = li.ifindex;
		rc = link_del(t, err, errlen);
		if (rc < 0)
			goto fail;
	}
	if (rc == 0 && li.table == table) {
		t->ifindex = li.ifindex;
		rc = link_flags(t, IFF_UP, IFF_UP, "set up", err, errlen);
		if (rc < 0)
			goto fail;
		*out = v;
		return 0;
	}
	cp_vrf_msg_new(t->buf, name, table);
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc == -EOPNOTSUPP || rc == -ENODEV) {
		/* rtnl_newlink(): no rtnl_link_ops of kind "vrf", and none to load */
		fail(t, err, errlen, "the kernel has no VRF driver: %s%s", strerror(-rc), text);
		rc = -EOPNOTSUPP;
		goto fail;
	}
	if (rc < 0) {
		fail(t, err, errlen, "create (table %u): %s%s", table, strerror(-rc), text);
		goto fail;
	}
	rc = link_get(t, &li);
	if (rc < 0) {
		fail(t, err, errlen, "look up the new device: %s", strerror(-rc));
		goto fail;
	}
	t->ifindex = li.ifindex;
	*out = v;
	return 0;
fail:
	link_release(t);
	free(v);
	return rc;
}

void cp_vrf_close(struct cp_vrf *v)
{
	char err[64];

	if (v == NULL)
		return;
	/* Its slaves are freed by the kernel (and cycled down and up). */
	if (v->link.nl != NULL && v->link.ifindex > 0)
		link_del(&v->link, err, sizeof(err));
	link_release(&v->link);
	free(v);
}

int cp_vrf_ifindex(const struct cp_vrf *v)
{
	return v->link.ifindex;
}

const char *cp_vrf_ifname(const struct cp_vrf *v)
{
	return v->link.name;
}

uint32_t cp_vrf_table(const struct cp_vrf *v)
{
	return v->table;
}

int cp_tap_set_master(struct cp_tap *t, int master, char *err, size_t errlen)
{
	char text[256];
	int rc;

	if (master < 0) {
		fail(t, err, errlen, "master ifindex %d", master);
		return -EINVAL;
	}
	cp_tap_msg_master(t->buf, t->ifindex, master);
	rc = nl_talk(t, NULL, NULL, text, sizeof(text));
	if (rc < 0) {
		if (master)
			fail(t, err, errlen, "enslave to ifindex %d: %s%s", master, strerror(-rc),
			     text);
		else
			fail(t, err, errlen, "free from its master: %s%s", strerror(-rc), text);
	}
	return rc;
}

int cp_tap_master(struct cp_tap *t)
{
	struct link_info li;
	int rc = link_get(t, &li);

	return rc < 0 ? rc : li.master;
}
