"""Latency per QoS class: a latency stream and a load stream per class.

Classes by DSCP, as vm/load/conf/vbrd_latency.conf sorts them:
  ef   DSCP 46  business rt, a strict-priority queue   latency pg_id 101, load pg_id 1
  af41 DSCP 34  business interactive                  latency pg_id 102, load pg_id 2
  af21 DSCP 18  business bulk, weighted queue af21    latency pg_id 103, load pg_id 3
  be   DSCP 0   unclassified: bulk's default queue    latency pg_id 104, load pg_id 4

Base rates (pps, before -m): each latency stream LAT_PPS (default 1000),
the load streams SHARES x 1000 (default 5:25:35:35, 100 kpps together).
-m multiplies all of them (a factor: `-m 50` is 5.2 Mpps, of which
50 kpps per latency stream); `-m 9mpps` scales the same
profile to a total, latency streams included, so they stay ~4 % of it.

  trex> start -f vm/load/trex/vbrd_latency.py -m 50 --port 0
  trex> tui        (key l: latency per pg_id: min/avg/max, jitter, drops)

Overloading the line (10G in the paired config) shows the classes apart:
ef's latency stays flat while be's grows with its queue and then loses.
Tunables: size (load frame bytes), lat_pps, shares ("5:25:35:35").
"""

from trex.stl.api import *  # noqa: F401,F403

from vbrd_addr import host, pad_to

# (name, DSCP, latency pg_id, load pg_id)
CLASSES = (("ef", 46, 101, 1), ("af41", 34, 102, 2), ("af21", 18, 103, 3), ("be", 0, 104, 4))


class VbrdLatency:
    """Per class: a latency stream (STLFlowLatencyStats) and a load stream."""

    def get_streams(self, direction=0, size=1024, lat_pps=1000, shares="5:25:35:35",
                    **kwargs):
        size, lat_pps = int(size), float(lat_pps)
        share = [float(x) for x in str(shares).split(":")]
        if len(share) != len(CLASSES):
            raise ValueError("shares: %d values, one per class" % len(CLASSES))
        src, dst = host(direction, 0, 1), host(direction, 1, 1)
        streams = []
        for i, (name, dscp, lat_pg, load_pg) in enumerate(CLASSES):
            # latency packets: one 5-tuple per class (source port 1000 + i)
            lat = Ether() / IP(src=src, dst=dst, tos=dscp << 2) / \
                UDP(sport=1000 + i, dport=5000 + i, chksum=0)
            streams.append(STLStream(name="lat-" + name,
                                     packet=STLPktBuilder(pkt=pad_to(lat, 128)),
                                     mode=STLTXCont(pps=lat_pps),
                                     flow_stats=STLFlowLatencyStats(pg_id=lat_pg)))
            # load: 256 source ports per class
            load = Ether() / IP(src=src, dst=dst, tos=dscp << 2) / \
                UDP(sport=2000 + 256 * i, dport=5000 + i, chksum=0)
            vm = [STLVmFlowVar(name="sport", min_value=2000 + 256 * i,
                               max_value=2000 + 256 * i + 255, size=2, op="inc"),
                  STLVmWrFlowVar(fv_name="sport", pkt_offset="UDP.sport")]
            streams.append(STLStream(name="load-" + name,
                                     packet=STLPktBuilder(pkt=pad_to(load, size), vm=vm),
                                     mode=STLTXCont(pps=share[i] * 1000),
                                     flow_stats=STLFlowStats(pg_id=load_pg)))
        return streams


def register():
    return VbrdLatency()
