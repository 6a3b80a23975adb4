"""Addresses shared by vbrd's TRex profiles (vm/load/trex) and their configs.

The DUT is a vbrd with two ports:

  TRex port 0 ── p0 lan0 10.0.1.1/24 [vbrd] lan1 10.0.2.1/24 p1 ── TRex port 1
  10.0.1.2  02:00:00:00:01:02                  10.0.2.2  02:00:00:00:02:02
  (16.0.0.0/16 behind it)                      (48.0.0.0/16 behind it)

vm/load/conf/*.conf hold these MACs as static neighbors, so neither side
resolves ARP: give TRex's ports these MACs (trex_cfg.yaml `src_mac`) and
vbrd's port MACs as `dest_mac`. Not a profile: trex-console ignores it.
"""

GEN_MAC = ("02:00:00:00:01:02", "02:00:00:00:02:02")  # TRex port 0, port 1
GEN_IP = ("10.0.1.2", "10.0.2.2")
DUT_IP = ("10.0.1.1", "10.0.2.1")
# The networks behind each TRex port: traffic of direction 0 goes from the
# first to the second, direction 1 the other way.
NET_BASE = ("16.0.0.", "48.0.0.")


def ends(direction):
    """(first source IP, first destination IP, last host) for DIRECTION 0 or 1."""
    d = int(direction) & 1
    return NET_BASE[d] + "1", NET_BASE[d ^ 1] + "1", 254


def host(direction, side, n):
    """Address N (1..254) of the source (side 0) or destination (side 1) network."""
    d = int(direction) & 1
    return NET_BASE[d ^ side] + str(n)


def pad_to(pkt, frame_size):
    """PKT padded with 'x' bytes to FRAME_SIZE bytes on the wire, FCS included."""
    return pkt / ("x" * max(0, int(frame_size) - 4 - len(pkt)))


def nth(direction, side, n):
    """The Nth address (1-based) of a side's network counting from .1,
    crossing into the next /24s: nth(0, 0, 300) = 16.0.1.44."""
    a = [int(x) for x in host(direction, side, 1).split(".")]
    v = (a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]) + int(n) - 1
    return "%d.%d.%d.%d" % (v >> 24, v >> 16 & 255, v >> 8 & 255, v & 255)
