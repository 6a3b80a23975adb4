/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metric families of /metrics, each read from a control command's
 * reply (metrics_render.h). The commands and their keys are documented in
 * app/README.md and stable; the names, types, labels and units here are
 * listed in metrics/README.md (keep the two in step).
 *
 * Naming (Prometheus "Metric and label naming"): vbrd_ prefix, base units
 * (bytes, seconds, ratios 0..1), _total on counters. Labels are names from
 * the configuration (ports, interfaces, VRFs, sessions, groups, paths,
 * lines, businesses, queues, classes) or fixed sets (drop reasons, states,
 * a failover group's member 0 or 1: show fgroup names their lines with
 * their gateways): bounded by the configuration, never an address.
 *
 * The specs of one command stand together: a command runs once a page.
 */
#include "metrics/metrics_render.h"

#define L(n, k)                     \
	{                           \
		.name = n, .key = k \
	}
#define C(n, v)                       \
	{                             \
		.name = n, .fixed = v \
	}

#define US  1e6 /* µs in a second */
#define MS  1e3 /* ms in a second */
#define PCT 1e2 /* percent to a ratio */
#define BPS 8.0 /* bits/s to bytes/s */

/* one spec, its members named (labels in LB(), NONE for none, the rest designated) */
#define M(n, t, h, c, r, lb, v, ...)                                                            \
	{                                                                                       \
		.name = n, .type = t, .help = h, .cmd = c, .rows = r, .labels = lb, .value = v, \
		__VA_ARGS__                                                                     \
	}
#define LB(...)             \
	{                   \
		__VA_ARGS__ \
	}
#define NONE              \
	{                 \
		{         \
			0 \
		}         \
	}

#define BFD_STATES "AdminDown|Down|Init|Up"
#define HA_ROLES   "init|standby|active|releasing"

const struct metric_spec metric_specs[] = {
	/* ---- the endpoint itself (first: the counts before this page) ---- */
	M("vbrd_metrics_scrapes_total", METRIC_COUNTER, "pages served on /metrics", "show metrics",
	  NULL, NONE, "scrapes"),
	M("vbrd_metrics_scrape_errors_total", METRIC_COUNTER,
	  "scrapes answered with an error (page too large, out of memory, stopping)",
	  "show metrics", NULL, NONE, "scrape_errors"),
	M("vbrd_metrics_render_errors_total", METRIC_COUNTER,
	  "control commands that failed while a page was rendered (their families were left out)",
	  "show metrics", NULL, NONE, "render_errors"),
	M("vbrd_metrics_renders_total", METRIC_COUNTER,
	  "pages rendered (concurrent scrapes share one)", "show metrics", NULL, NONE, "renders"),
	M("vbrd_metrics_http_rejected_total", METRIC_COUNTER,
	  "HTTP requests refused: another path than /metrics, another method than GET or HEAD",
	  "show metrics", NULL, NONE, "rejected"),
	M("vbrd_metrics_last_render_seconds", METRIC_GAUGE,
	  "wall time of the last page, its first command to its last (the loop runs between its "
	  "steps)",
	  "show metrics", NULL, NONE, "last_render_ms", .div = MS),
	M("vbrd_metrics_longest_step_seconds", METRIC_GAUGE,
	  "the most time one turn of the control loop spent on a page, since start", "show metrics",
	  NULL, NONE, "longest_step_ms", .div = MS),
	M("vbrd_metrics_last_render_bytes", METRIC_GAUGE, "size of the last page rendered",
	  "show metrics", NULL, NONE, "last_render_bytes"),

	/* ---- packets through the whole router ---- */
	M("vbrd_rx_packets_total", METRIC_COUNTER, "packets the workers received", "show stats",
	  NULL, NONE, "rx_packets"),
	M("vbrd_tx_packets_total", METRIC_COUNTER, "packets the workers sent", "show stats", NULL,
	  NONE, "tx_packets"),
	M("vbrd_forwarded_packets_total", METRIC_COUNTER, "packets routed through", "show stats",
	  NULL, NONE, "forwarded"),
	M("vbrd_local_packets_total", METRIC_COUNTER, "packets to vbrd's own addresses",
	  "show stats", NULL, NONE, "local"),
	M("vbrd_control_packets_total", METRIC_COUNTER,
	  "packets handed to the control thread (ARP, ND, punts)", "show stats", NULL, NONE,
	  "to_control"),
	M("vbrd_icmp_errors_sent_total", METRIC_COUNTER, "ICMP and ICMPv6 errors sent",
	  "show stats", NULL, NONE, "icmp_errors"),
	M("vbrd_icmp_rate_limited_total", METRIC_COUNTER,
	  "ICMP errors not sent: over icmp.rate_pps", "show stats", NULL, NONE,
	  "icmp_rate_limited"),
	M("vbrd_ipv4_fragments_sent_total", METRIC_COUNTER,
	  "IPv4 fragments made of packets larger than the egress MTU", "show stats", NULL, NONE,
	  "fragments"),
	M("vbrd_worker_rx_packets_total", METRIC_COUNTER, "packets each worker received",
	  "show stats", "workers", LB(L("worker", "id")), "rx_packets"),
	M("vbrd_worker_tx_packets_total", METRIC_COUNTER, "packets each worker sent", "show stats",
	  "workers", LB(L("worker", "id")), "tx_packets"),
	M("vbrd_main_loop_turns_total", METRIC_COUNTER, "turns of the control thread's loop",
	  "show stats", NULL, NONE, "main_loop.turns"),
	M("vbrd_main_loop_longest_turn_seconds", METRIC_GAUGE,
	  "the control loop's longest turn since start (wall clock)", "show stats", NULL, NONE,
	  "main_loop.longest_turn_ms", .div = MS),
	M("vbrd_main_loop_long_turns_total", METRIC_COUNTER,
	  "turns of the control loop longer than `over` seconds", "show stats", NULL,
	  LB(C("over", "0.001")), "main_loop.turns_over_1ms"),
	M("vbrd_main_loop_long_turns_total", METRIC_COUNTER, NULL, "show stats", NULL,
	  LB(C("over", "0.01")), "main_loop.turns_over_10ms"),
	M("vbrd_main_loop_long_turns_total", METRIC_COUNTER, NULL, "show stats", NULL,
	  LB(C("over", "0.1")), "main_loop.turns_over_100ms"),

	/* ---- drops by reason ---- */
	M("vbrd_dropped_packets_total", METRIC_COUNTER,
	  "packets dropped, by reason (vbrctl show drops says what each means)", "show drops",
	  "drops", LB(L("reason", "reason"), L("feature", "feature")), "packets"),

	/* ---- ports ---- */
	M("vbrd_port_up", METRIC_GAUGE, "1 when the port's link is up", "show ports", "ports",
	  LB(L("port", "name")), "link", .how = METRIC_IS, .match = "up"),
	M("vbrd_port_mtu_bytes", METRIC_GAUGE, "the port's L3 MTU", "show ports", "ports",
	  LB(L("port", "name")), "mtu"),
	M("vbrd_port_rx_packets_total", METRIC_COUNTER, "packets the port received", "show ports",
	  "ports", LB(L("port", "name")), "rx_packets"),
	M("vbrd_port_rx_bytes_total", METRIC_COUNTER, "bytes the port received", "show ports",
	  "ports", LB(L("port", "name")), "rx_bytes"),
	M("vbrd_port_tx_packets_total", METRIC_COUNTER, "packets the port sent", "show ports",
	  "ports", LB(L("port", "name")), "tx_packets"),
	M("vbrd_port_tx_bytes_total", METRIC_COUNTER, "bytes the port sent", "show ports", "ports",
	  LB(L("port", "name")), "tx_bytes"),
	M("vbrd_port_rx_missed_packets_total", METRIC_COUNTER,
	  "packets the port dropped for want of RX descriptors", "show ports", "ports",
	  LB(L("port", "name")), "rx_missed"),
	M("vbrd_port_rx_errors_total", METRIC_COUNTER, "erroneous packets the port received",
	  "show ports", "ports", LB(L("port", "name")), "rx_errors"),
	M("vbrd_port_tx_errors_total", METRIC_COUNTER, "packets the port failed to send",
	  "show ports", "ports", LB(L("port", "name")), "tx_errors"),

	/* ---- interfaces (802.1Q sub-interfaces, tunnels' own) ---- */
	M("vbrd_interface_rx_packets_total", METRIC_COUNTER, "packets the interface received",
	  "show interfaces", "interfaces", LB(L("interface", "name"), L("vrf", "vrf")),
	  "rx_packets"),
	M("vbrd_interface_rx_bytes_total", METRIC_COUNTER, "bytes the interface received",
	  "show interfaces", "interfaces", LB(L("interface", "name"), L("vrf", "vrf")), "rx_bytes"),
	M("vbrd_interface_tx_packets_total", METRIC_COUNTER, "packets the interface sent",
	  "show interfaces", "interfaces", LB(L("interface", "name"), L("vrf", "vrf")),
	  "tx_packets"),
	M("vbrd_interface_tx_bytes_total", METRIC_COUNTER, "bytes the interface sent",
	  "show interfaces", "interfaces", LB(L("interface", "name"), L("vrf", "vrf")), "tx_bytes"),

	/* ---- VRFs and their FIBs ---- */
	M("vbrd_vrf_interfaces", METRIC_GAUGE, "interfaces in the VRF", "show vrfs", "vrfs",
	  LB(L("vrf", "name")), "interfaces"),
	M("vbrd_vrf_no_route_packets_total", METRIC_COUNTER,
	  "packets the VRF's interfaces received and dropped for no route in it", "show vrfs",
	  "vrfs", LB(L("vrf", "name")), "no_route"),
	M("vbrd_fib_routes", METRIC_GAUGE,
	  "routes in the VRF's FIB: of its interfaces and the configuration, and FRR's",
	  "show vrfs", "vrfs", LB(L("vrf", "name"), C("family", "ipv4"), C("source", "config")),
	  "routes4"),
	M("vbrd_fib_routes", METRIC_GAUGE, NULL, "show vrfs", "vrfs",
	  LB(L("vrf", "name"), C("family", "ipv6"), C("source", "config")), "routes6"),
	M("vbrd_fib_routes", METRIC_GAUGE, NULL, "show vrfs", "vrfs",
	  LB(L("vrf", "name"), C("family", "ipv4"), C("source", "frr")), "frr4"),
	M("vbrd_fib_routes", METRIC_GAUGE, NULL, "show vrfs", "vrfs",
	  LB(L("vrf", "name"), C("family", "ipv6"), C("source", "frr")), "frr6"),
	M("vbrd_fib_capacity_routes", METRIC_GAUGE, "routes the VRF's FIB is sized for",
	  "show vrfs", "vrfs", LB(L("vrf", "name"), C("family", "ipv4")), "fib_routes4"),
	M("vbrd_fib_capacity_routes", METRIC_GAUGE, NULL, "show vrfs", "vrfs",
	  LB(L("vrf", "name"), C("family", "ipv6")), "fib_routes6"),
	M("vbrd_fib_capacity_tbl8_groups", METRIC_GAUGE,
	  "tbl8 groups (prefixes longer than /24, or /24.. of IPv6) the VRF's FIB is sized for",
	  "show vrfs", "vrfs", LB(L("vrf", "name"), C("family", "ipv4")), "fib_tbl8_4"),
	M("vbrd_fib_capacity_tbl8_groups", METRIC_GAUGE, NULL, "show vrfs", "vrfs",
	  LB(L("vrf", "name"), C("family", "ipv6")), "fib_tbl8_6"),
	M("vbrd_fib_memory_bytes", METRIC_GAUGE, "EAL memory of the VRF's two FIBs", "show vrfs",
	  "vrfs", LB(L("vrf", "name")), "fib_bytes"),

	/* ---- packet buffers ---- */
	M("vbrd_mempool_mbufs", METRIC_GAUGE, "packet buffers in the mempool", "show mempool", NULL,
	  NONE, "size"),
	M("vbrd_mempool_mbufs_in_use", METRIC_GAUGE, "packet buffers in use", "show mempool", NULL,
	  NONE, "in_use"),

	/* ---- tunnels, path groups ---- */
	M("vbrd_tunnel_rx_packets_total", METRIC_COUNTER, "packets decapsulated from the tunnel",
	  "show tunnels", "tunnels", LB(L("tunnel", "name")), "rx_packets"),
	M("vbrd_tunnel_rx_bytes_total", METRIC_COUNTER, "inner bytes received by the tunnel",
	  "show tunnels", "tunnels", LB(L("tunnel", "name")), "rx_bytes"),
	M("vbrd_tunnel_tx_packets_total", METRIC_COUNTER, "packets encapsulated into the tunnel",
	  "show tunnels", "tunnels", LB(L("tunnel", "name")), "tx_packets"),
	M("vbrd_tunnel_tx_bytes_total", METRIC_COUNTER, "inner bytes sent into the tunnel",
	  "show tunnels", "tunnels", LB(L("tunnel", "name")), "tx_bytes"),
	M("vbrd_path_group_switches_total", METRIC_COUNTER,
	  "switches of the path group's active path (path selection's and `path set`)",
	  "show paths", "path_groups", LB(L("group", "name")), "switches"),
	M("vbrd_path_active", METRIC_GAUGE, "1 for the path group's active path", "show paths",
	  "path_groups/paths", LB(L("group", "../name"), L("path", "name")), "active"),

	/* ---- path selection: paths and planes ---- */
	M("vbrd_pathsel_decisions_total", METRIC_COUNTER, "path selection's decision passes",
	  "show pathsel", "path_groups", LB(L("group", "name")), "decisions"),
	M("vbrd_pathsel_switches_total", METRIC_COUNTER, "path selection's switches",
	  "show pathsel", "path_groups", LB(L("group", "name")), "switches"),
	M("vbrd_pathsel_tier_path", METRIC_GAUGE, "1 for the path each tier takes", "show pathsel",
	  "path_groups", LB(L("group", "name"), C("tier", "gold"), L("path", "gold")), "gold",
	  .how = METRIC_ONE),
	M("vbrd_pathsel_tier_path", METRIC_GAUGE, NULL, "show pathsel", "path_groups",
	  LB(L("group", "name"), C("tier", "silver"), L("path", "silver")), "silver", METRIC_ONE),
	M("vbrd_pathsel_tier_path", METRIC_GAUGE, NULL, "show pathsel", "path_groups",
	  LB(L("group", "name"), C("tier", "bronze"), L("path", "bronze")), "bronze", METRIC_ONE),
	M("vbrd_pathsel_path_healthy_planes", METRIC_GAUGE, "the path's planes that are healthy",
	  "show pathsel", "path_groups/paths", LB(L("group", "../name"), L("path", "name")),
	  "healthy_planes"),
	M("vbrd_pathsel_path_planes", METRIC_GAUGE, "the path's planes", "show pathsel",
	  "path_groups/paths", LB(L("group", "../name"), L("path", "name")), "planes"),
	M("vbrd_pathsel_path_rtt_seconds", METRIC_GAUGE,
	  "round-trip time over the path's healthy planes (STAMP, RFC 8762)", "show pathsel",
	  "path_groups/paths", LB(L("group", "../name"), L("path", "name"), C("stat", "min")),
	  "rtt_min_us", .div = US),
	M("vbrd_pathsel_path_rtt_seconds", METRIC_GAUGE, NULL, "show pathsel", "path_groups/paths",
	  LB(L("group", "../name"), L("path", "name"), C("stat", "mean")), "rtt_mean_us",
	  .div = US),
	M("vbrd_pathsel_path_rtt_seconds", METRIC_GAUGE, NULL, "show pathsel", "path_groups/paths",
	  LB(L("group", "../name"), L("path", "name"), C("stat", "p99")), "rtt_p99_us", .div = US),
	M("vbrd_pathsel_path_jitter_seconds", METRIC_GAUGE,
	  "interarrival jitter over the path's healthy planes (RFC 3550)", "show pathsel",
	  "path_groups/paths", LB(L("group", "../name"), L("path", "name")), "jitter_us",
	  .div = US),
	M("vbrd_pathsel_path_loss_ratio", METRIC_GAUGE,
	  "probes lost over the window on the path's healthy planes, 0..1", "show pathsel",
	  "path_groups/paths", LB(L("group", "../name"), L("path", "name")), "loss_pct",
	  .div = PCT),
	M("vbrd_stamp_reflector_answered_total", METRIC_COUNTER,
	  "STAMP test packets the reflector answered", "show pathsel", NULL, NONE,
	  "reflector.answered"),
	M("vbrd_pathsel_plane_up", METRIC_GAUGE, "1 when the plane is healthy",
	  "show pathsel planes", "planes",
	  LB(L("group", "group"), L("path", "path"), L("plane", "plane")), "healthy"),
	M("vbrd_pathsel_plane_probes_sent_total", METRIC_COUNTER, "STAMP probes sent on the plane",
	  "show pathsel planes", "planes",
	  LB(L("group", "group"), L("path", "path"), L("plane", "plane")), "tx"),
	M("vbrd_pathsel_plane_probes_received_total", METRIC_COUNTER,
	  "STAMP replies received on the plane", "show pathsel planes", "planes",
	  LB(L("group", "group"), L("path", "path"), L("plane", "plane")), "rx"),
	M("vbrd_pathsel_plane_rtt_seconds", METRIC_GAUGE, "mean round-trip time of the plane",
	  "show pathsel planes", "planes",
	  LB(L("group", "group"), L("path", "path"), L("plane", "plane")), "rtt_mean_us",
	  .div = US),
	M("vbrd_pathsel_plane_loss_ratio", METRIC_GAUGE,
	  "probes lost over the window on the plane, 0..1", "show pathsel planes", "planes",
	  LB(L("group", "group"), L("path", "path"), L("plane", "plane")), "loss_pct", .div = PCT),
	M("vbrd_pathsel_worker_stalls_total", METRIC_COUNTER,
	  "returns of the BFD worker from more than 20 ms away from its loop",
	  "show pathsel planes", NULL, NONE, "worker_stalls"),

	/* ---- BFD sessions ---- */
	M("vbrd_bfd_session_up", METRIC_GAUGE, "1 when the BFD session is Up", "show bfd",
	  "sessions", LB(L("session", "name"), L("where", "where")), "state", .how = METRIC_IS,
	  .match = "Up"),
	M("vbrd_bfd_session_state", METRIC_GAUGE, "the BFD session's state (RFC 5880 §4.1)",
	  "show bfd", "sessions", LB(L("session", "name"), L("where", "where")), "state",
	  .how = METRIC_STATESET, .match = BFD_STATES, .state_label = "state"),
	M("vbrd_bfd_session_flaps_total", METRIC_COUNTER, "times the session went down from Up",
	  "show bfd", "sessions", LB(L("session", "name"), L("where", "where")), "flaps"),
	M("vbrd_bfd_session_rx_packets_total", METRIC_COUNTER,
	  "BFD control packets the session accepted", "show bfd", "sessions",
	  LB(L("session", "name"), L("where", "where")), "rx"),
	M("vbrd_bfd_session_tx_packets_total", METRIC_COUNTER,
	  "BFD control packets the session sent", "show bfd", "sessions",
	  LB(L("session", "name"), L("where", "where")), "tx"),
	M("vbrd_bfd_session_rx_dropped_packets_total", METRIC_COUNTER,
	  "BFD packets for the session that were dropped (the bfd_* drop reasons)", "show bfd",
	  "sessions", LB(L("session", "name"), L("where", "where")), "rx_dropped"),
	M("vbrd_bfd_session_detect_time_seconds", METRIC_GAUGE, "the session's detection time",
	  "show bfd", "sessions", LB(L("session", "name"), L("where", "where")), "detect_time_us",
	  .div = US),
	M("vbrd_bfd_session_uptime_seconds", METRIC_GAUGE, "how long the session has been Up",
	  "show bfd", "sessions", LB(L("session", "name"), L("where", "where")), "uptime_us",
	  .div = US),

	/* ---- failover groups ---- */
	M("vbrd_failover_group_switches_total", METRIC_COUNTER, "switches of the failover group",
	  "show fgroup", "groups", LB(L("group", "name")), "switches"),
	M("vbrd_failover_group_member_active", METRIC_GAUGE,
	  "1 for the member (or both, load-balancing) the group sends on", "show fgroup", "groups",
	  LB(L("group", "name"), C("member", "0")), "active", METRIC_IS, "member0|both"),
	M("vbrd_failover_group_member_active", METRIC_GAUGE, NULL, "show fgroup", "groups",
	  LB(L("group", "name"), C("member", "1")), "active", .how = METRIC_IS,
	  .match = "member1|both"),
	M("vbrd_failover_group_member_up", METRIC_GAUGE,
	  "1 when the member is usable: its BFD session Up, or it has none", "show fgroup",
	  "groups", LB(L("group", "name"), C("member", "0")), "member0_state", METRIC_IS,
	  "Up|up (no bfd)"),
	M("vbrd_failover_group_member_up", METRIC_GAUGE, NULL, "show fgroup", "groups",
	  LB(L("group", "name"), C("member", "1")), "member1_state", METRIC_IS, "Up|up (no bfd)"),

	/* ---- HA pair ---- */
	M("vbrd_ha_enabled", METRIC_GAUGE, "1 when the configuration has an HA pair", "show ha",
	  NULL, NONE, "enabled"),
	M("vbrd_ha_role", METRIC_GAUGE, "the node's role in the HA pair", "show ha", NULL, NONE,
	  "role", .how = METRIC_STATESET, .match = HA_ROLES, .state_label = "role"),
	M("vbrd_ha_epoch", METRIC_GAUGE, "the lease's fencing token this node last held", "show ha",
	  NULL, NONE, "epoch"),
	M("vbrd_ha_lease_remaining_seconds", METRIC_GAUGE,
	  "time to the active's local lease deadline (0 when not active)", "show ha", NULL, NONE,
	  "lease_remaining_ms", .div = MS),
	M("vbrd_ha_takeovers_total", METRIC_COUNTER, "times this node became active", "show ha",
	  NULL, NONE, "takeovers"),
	M("vbrd_ha_step_downs_total", METRIC_COUNTER, "times this node stopped being active",
	  "show ha", NULL, NONE, "step_downs"),
	M("vbrd_ha_renew_failures_total", METRIC_COUNTER, "lease renewals that failed", "show ha",
	  NULL, NONE, "renew_failures"),
	M("vbrd_ha_redis_up", METRIC_GAUGE, "1 when the link to Redis is up", "show ha", NULL, NONE,
	  "redis.link", .how = METRIC_IS, .match = "up"),

	/* ---- QoS per line, business, queue, class ---- */
	M("vbrd_qos_line_rate_bytes_per_second", METRIC_GAUGE, "the line's shaped rate", "show qos",
	  "lines", LB(L("interface", "interface")), "rate_bps", .div = BPS),
	M("vbrd_qos_line_backlog_packets", METRIC_GAUGE, "packets queued in the line's queues",
	  "show qos", "lines", LB(L("interface", "interface")), "backlog"),
	M("vbrd_qos_line_unclassified_packets_total", METRIC_COUNTER,
	  "packets no class matched (to the default business's default queue)", "show qos", "lines",
	  LB(L("interface", "interface")), "unclassified"),
	M("vbrd_qos_line_borrowed_packets_total", METRIC_COUNTER,
	  "packets sent on rate another business left unused", "show qos", "lines",
	  LB(L("interface", "interface")), "borrowed_packets"),
	M("vbrd_qos_business_guaranteed_bytes_per_second", METRIC_GAUGE,
	  "the business's guaranteed rate", "show qos", "businesses",
	  LB(L("interface", "interface"), L("business", "business")), "guaranteed_bps", .div = BPS),
	M("vbrd_qos_business_ceiling_bytes_per_second", METRIC_GAUGE, "the business's ceiling",
	  "show qos", "businesses", LB(L("interface", "interface"), L("business", "business")),
	  "ceiling_bps", .div = BPS),
	M("vbrd_qos_business_packets_total", METRIC_COUNTER, "packets sent for the business",
	  "show qos", "businesses", LB(L("interface", "interface"), L("business", "business")),
	  "packets"),
	M("vbrd_qos_business_bytes_total", METRIC_COUNTER,
	  "frame bytes sent for the business (L2 header included)", "show qos", "businesses",
	  LB(L("interface", "interface"), L("business", "business")), "bytes"),
	M("vbrd_qos_business_dropped_packets_total", METRIC_COUNTER,
	  "packets of the business dropped, by reason", "show qos", "businesses",
	  LB(L("interface", "interface"), L("business", "business"), C("reason", "queue_full")),
	  "queue_full"),
	M("vbrd_qos_business_dropped_packets_total", METRIC_COUNTER, NULL, "show qos", "businesses",
	  LB(L("interface", "interface"), L("business", "business"), C("reason", "policer_red")),
	  "policer_red"),
	M("vbrd_qos_business_dropped_packets_total", METRIC_COUNTER, NULL, "show qos", "businesses",
	  LB(L("interface", "interface"), L("business", "business"), C("reason", "queue_removed")),
	  "queue_removed"),
	M("vbrd_qos_queue_packets_total", METRIC_COUNTER, "packets the queue sent", "show qos",
	  "queues", LB(L("interface", "interface"), L("business", "business"), L("queue", "queue")),
	  "packets"),
	M("vbrd_qos_queue_bytes_total", METRIC_COUNTER, "frame bytes the queue sent", "show qos",
	  "queues", LB(L("interface", "interface"), L("business", "business"), L("queue", "queue")),
	  "bytes"),
	M("vbrd_qos_queue_enqueued_packets_total", METRIC_COUNTER, "packets the queue accepted",
	  "show qos", "queues",
	  LB(L("interface", "interface"), L("business", "business"), L("queue", "queue")),
	  "enqueued"),
	M("vbrd_qos_queue_dropped_packets_total", METRIC_COUNTER,
	  "packets for the queue dropped, by reason", "show qos", "queues",
	  LB(L("interface", "interface"), L("business", "business"), L("queue", "queue"),
	     C("reason", "queue_full")),
	  "queue_full"),
	M("vbrd_qos_queue_dropped_packets_total", METRIC_COUNTER, NULL, "show qos", "queues",
	  LB(L("interface", "interface"), L("business", "business"), L("queue", "queue"),
	     C("reason", "policer_red")),
	  "policer_red"),
	M("vbrd_qos_queue_dropped_packets_total", METRIC_COUNTER, NULL, "show qos", "queues",
	  LB(L("interface", "interface"), L("business", "business"), L("queue", "queue"),
	     C("reason", "queue_removed")),
	  "queue_removed"),
	M("vbrd_qos_queue_depth_packets", METRIC_GAUGE, "packets queued now", "show qos", "queues",
	  LB(L("interface", "interface"), L("business", "business"), L("queue", "queue")), "depth"),
	M("vbrd_qos_queue_limit_packets", METRIC_GAUGE, "the queue's limit", "show qos", "queues",
	  LB(L("interface", "interface"), L("business", "business"), L("queue", "queue")), "limit"),
	M("vbrd_qos_class_packets_total", METRIC_COUNTER, "packets the class matched", "show qos",
	  "classes", LB(L("interface", "interface"), L("class", "class")), "packets"),
	M("vbrd_qos_class_bytes_total", METRIC_COUNTER, "bytes of the packets the class matched",
	  "show qos", "classes", LB(L("interface", "interface"), L("class", "class")), "bytes"),
	M("vbrd_qos_class_policed_packets_total", METRIC_COUNTER,
	  "packets the class's policer coloured, by colour (RFC 2698, RFC 4115)", "show qos",
	  "classes", LB(L("interface", "interface"), L("class", "class"), C("color", "green")),
	  "policer_green"),
	M("vbrd_qos_class_policed_packets_total", METRIC_COUNTER, NULL, "show qos", "classes",
	  LB(L("interface", "interface"), L("class", "class"), C("color", "yellow")),
	  "policer_yellow"),
	M("vbrd_qos_class_policed_packets_total", METRIC_COUNTER, NULL, "show qos", "classes",
	  LB(L("interface", "interface"), L("class", "class"), C("color", "red")), "policer_red"),
};

const unsigned metric_nb_specs = sizeof(metric_specs) / sizeof(metric_specs[0]);
