/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config sections "cplane" (frr/cplane/cplane_config.c) and "fpm"
 * (frr/fpm/fpm_config.c): defaults, every setting, each error with its
 * FILE:LINE, and which settings a reload may not change.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <sys/socket.h>

#include "config_fixture.h"
#include "core/config_read.h"
#include "frr/cplane/cplane_config.h"
#include "frr/fpm/fpm_config.h"

static const char BASE[] =
	"ports = ( { name = \"p0\"; devargs = \"net_null0\"; } );\n"
	"interfaces = ( { name = \"line1\"; port = \"p0\"; address = \"172.16.1.1/30\"; } );\n";
#define BASE_LINES 2

static int load_text(const char *text, struct vbrd_config *cfg, struct config_errors *errs)
{
	return CFX_LOAD(cfg, errs, BASE, text);
}

static void absent_sections(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(load_text("", &cfg, &errs), 0);
	const struct cfg_cplane *c = cfg_cplane_get(&cfg);
	const struct cfg_fpm *f = cfg_fpm_get(&cfg);
	/* nothing answers the world unless configured */
	assert_false(c->enabled);
	assert_false(f->enabled);
	config_free(&cfg);
}

static void defaults(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(load_text("cplane = { };\nfpm = { };\n", &cfg, &errs), 0);
	const struct cfg_cplane *c = cfg_cplane_get(&cfg);
	const struct cfg_fpm *f = cfg_fpm_get(&cfg);
	assert_true(c->enabled);
	assert_string_equal(c->netns, "");
	assert_string_equal(c->tap_prefix, "vb-");
	assert_int_equal(c->nb_peers, 0);
	assert_int_equal(c->police[CPLANE_BGP].rate, 20000);
	assert_int_equal(c->police[CPLANE_BGP].burst, 4000);
	assert_int_equal(c->police[CPLANE_TCP].rate, 2000);
	assert_int_equal(c->police[CPLANE_ICMP].rate, 1000);
	assert_int_equal(c->police[CPLANE_OTHER].burst, 200);
	assert_true(f->enabled);
	assert_int_equal(f->address.family, AF_INET);
	assert_int_equal(f->address.v4, 0x7f000001);
	assert_int_equal(f->port, 2620);
	assert_int_equal(f->stale_ms, 3000);
	assert_int_equal(f->table, 254);
	config_free(&cfg);
}

static void every_setting(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(
		load_text("cplane = { netns = \"vbrd-cp\"; tap_prefix = \"x.\";\n"
			  "  bgp_peers = [ \"172.16.1.2\", \"2001:db8::2\" ];\n"
			  "  police = { bgp = { rate = 5000; burst = 100; }; other = { rate = 1; "
			  "burst = 1; }; };\n};\n"
			  "fpm = { address = \"::1\"; port = 2621; stale_ms = 100; table = 1000; "
			  "};\n",
			  &cfg, &errs),
		0);
	const struct cfg_cplane *c = cfg_cplane_get(&cfg);
	const struct cfg_fpm *f = cfg_fpm_get(&cfg);
	assert_string_equal(c->netns, "vbrd-cp");
	assert_string_equal(c->tap_prefix, "x.");
	assert_int_equal(c->nb_peers, 2);
	assert_int_equal(c->peers[0].v4, 0xac100102);
	assert_int_equal(c->peers[1].family, AF_INET6);
	assert_int_equal(c->police[CPLANE_BGP].rate, 5000);
	assert_int_equal(c->police[CPLANE_BGP].burst, 100);
	assert_int_equal(c->police[CPLANE_OTHER].rate, 1);
	assert_int_equal(c->police[CPLANE_TCP].rate, 2000); /* untouched: the default */
	assert_int_equal(f->address.family, AF_INET6);
	assert_int_equal(f->port, 2621);
	assert_int_equal(f->stale_ms, 100);
	assert_int_equal(f->table, 1000);
	config_free(&cfg);
}

static void vrf_netns(void **state)
{
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	(void)state;
	assert_int_equal(load_text("vrfs = ( { name = \"a\"; table = 100; netns = \"va\"; },\n"
				   "  { name = \"b\"; table = 200; } );\n"
				   "cplane = { netns = \"cp\"; };\nfpm = { };\n",
				   &cfg, &errs),
			 0);
	assert_int_equal(cfg.nb_vrfs, 3);
	assert_string_equal(cfg.vrfs[0].netns, "");
	assert_string_equal(cfg.vrfs[1].netns, "va");
	assert_string_equal(cfg.vrfs[2].netns, "");
	config_free(&cfg);
}

struct err_case {
	const char *text;
	int line; /* of the error, within text (1 = its first line) */
	const char *msg;
};

static const struct err_case errors[] = {
	{ "fpm = { };\n", 1,
	  "fpm: needs the cplane section: zebra names next hops by vbrd's TAPs, which cplane "
	  "makes" },
	{ "cplane = { netns = \"a/b\"; };\n", 1,
	  "cplane.netns: 'a/b' is no network namespace name ([A-Za-z0-9_.-])" },
	{ "cplane = { netns = \"..\"; };\n", 1,
	  "cplane.netns: '..' is no network namespace name ([A-Za-z0-9_.-])" },
	{ "cplane = {\n  police = { tcp = { rate = 0; }; };\n};\n", 2,
	  "cplane.police.tcp.rate: 0 is out of range 1..10000000" },
	{ "cplane = {\n  police = { udp = { rate = 1; }; };\n};\n", 2,
	  "unknown setting 'cplane.police.udp'" },
	{ "cplane = {\n  bgp_peers = [ \"10.0.0.300\" ];\n};\n", 2,
	  "cplane.bgp_peers[0]: not an IPv4 or IPv6 address" },
	{ "cplane = { peers = 1; };\n", 1, "unknown setting 'cplane.peers'" },
	{ "cplane = { };\nfpm = { port = 0; };\n", 2, "fpm.port: 0 is out of range 1..65535" },
	{ "cplane = { };\nfpm = { stale_ms = 10; };\n", 2,
	  "fpm.stale_ms: 10 is out of range 100..600000" },
	{ "cplane = 3;\n", 1, "cplane: must be a group: cplane = { ... }" },
	/* a VRF's control namespace (vrfs[].netns) */
	{ "vrfs = ( { name = \"a\"; table = 100; netns = \"a/b\"; } );\n", 1,
	  "vrfs[0].netns: 'a/b' is no network namespace name ([A-Za-z0-9_.-])" },
	{ "vrfs = ( { name = \"a\"; table = 100; netns = \"\"; } );\n", 1,
	  "vrfs[0].netns: length 0 is out of range 1..63" },
	{ "vrfs = ( { name = \"a\"; table = 100; netns = \"va\"; },\n"
	  "  { name = \"b\"; table = 200; netns = \"va\"; } );\n",
	  2, "vrfs[1].netns: namespace 'va' already belongs to VRF 'a' (line 3): one VRF a namespace" },
	{ "vrfs = ( { name = \"a\"; table = 100; netns = \"cp\"; } );\n"
	  "cplane = { netns = \"cp\"; };\n",
	  2,
	  "cplane.netns: namespace 'cp' belongs to VRF 'a' (line 3): the control namespace serves "
	  "the VRFs without one" },
	/* kernel names, as start-up would refuse them (tap.h): --check-config says so;
	 * FNV-1a of both long names ends in 0xc976 (python3: h ^= c; h *= 16777619) */
	{ "vrfs = ( { name = \".\"; table = 100; } );\ncplane = { };\n", 2,
	  "cplane: no kernel device name for VRF '.'" },
	{ "vrfs = ( { name = \"vb-line1\"; table = 100; } );\ncplane = { };\n", 2,
	  "cplane: VRF 'vb-line1' and the TAP of interface 'line1' would both have the kernel "
	  "device name 'vb-line1': rename one, or change cplane.tap_prefix" },
	{ "vrfs = ( { name = \"tenant-vpc-00408\"; table = 100; },\n"
	  "  { name = \"tenant-vpc-01704\"; table = 200; } );\ncplane = { };\n",
	  3,
	  "cplane: VRFs 'tenant-vpc-00408' and 'tenant-vpc-01704' would both have the kernel "
	  "device name 'tenant-vpc~c976': rename one (names of up to 15 characters are used "
	  "whole)" },
};

static void one_error(void **state)
{
	const struct err_case *c = *state;
	struct config_errors errs = { 0 };
	struct vbrd_config cfg;

	assert_int_equal(load_text(c->text, &cfg, &errs), -EINVAL);
	cfx_assert_one_error(&errs, BASE_LINES + c->line, c->msg);
}

static void restart_settings(void **state)
{
	static const struct {
		const char *text;
		const char *changed; /* NULL: a reload may apply it */
	} reloads[] = {
		{ "cplane = { netns = \"cp\"; police = { bgp = { rate = 1; }; }; bgp_peers = [ "
		  "\"172.16.1.2\" ]; };\nfpm = { stale_ms = 500; };\n",
		  NULL },
		{ "cplane = { netns = \"cp\"; };\nfpm = { table = 7; };\n",
		  "fpm.table: changed from '254' to '7'" },
		{ "cplane = { netns = \"cp2\"; };\nfpm = { };\n",
		  "cplane.netns: changed from 'cp' to 'cp2'" },
		{ "cplane = { netns = \"cp\"; tap_prefix = \"t-\"; };\nfpm = { };\n",
		  "cplane.tap_prefix: changed from 'vb-' to 't-'" },
		{ "cplane = { netns = \"cp\"; };\nfpm = { port = 2700; };\n",
		  "fpm.port: changed from '2620' to '2700'" },
		{ "cplane = { netns = \"cp\"; };\n", "fpm.address: removed (was '127.0.0.1')" },
		{ "", "cplane.netns: removed (was 'cp')" },
	};
	struct config_errors errs = { 0 };
	struct vbrd_config cur, next;
	char err[4096];

	(void)state;
	assert_int_equal(load_text("cplane = { netns = \"cp\"; };\nfpm = { };\n", &cur, &errs), 0);
	for (size_t i = 0; i < sizeof(reloads) / sizeof(reloads[0]); i++) {
		assert_int_equal(load_text(reloads[i].text, &next, &errs), 0);
		int rc = config_restart_diff(&cur, &next, err, sizeof(err));
		if (reloads[i].changed == NULL) {
			if (rc != 0)
				print_message("%s\n", err);
			assert_int_equal(rc, 0);
		} else {
			if (rc != -EPERM || strstr(err, reloads[i].changed) == NULL)
				print_message("want %s in:\n%s\n", reloads[i].changed, err);
			assert_int_equal(rc, -EPERM);
			assert_non_null(strstr(err, reloads[i].changed));
		}
		config_free(&next);
	}
	config_free(&cur);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(absent_sections),  cmocka_unit_test(defaults),
		cmocka_unit_test(every_setting),    cmocka_unit_test(vrf_netns),
		cmocka_unit_test(restart_settings),
	};
	static const struct cfx_table tables[] = {
		CFX_TABLE(errors, msg, "error: ", one_error),
	};
	return cfx_run("frr_config", fixed, sizeof(fixed) / sizeof(fixed[0]), tables,
		       sizeof(tables) / sizeof(tables[0]));
}
