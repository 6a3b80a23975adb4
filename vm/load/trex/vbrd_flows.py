"""Many flows: spreading over ECMP next hops and over RX queues / workers.

One UDP stream whose field engine walks FLOWS source addresses (from
16.0.0.1, crossing /24s) and, for each, a source port drawn at random
from 1024..65535: every packet is likely a new 5-tuple.

  trex> portattr --port 1 --prom on        # port 1 receives both next hops' MACs
  trex> start -f vm/load/trex/vbrd_flows.py -m 5mpps --port 0 -t flows=100000

Pairs with vm/load/conf/vbrd_flows.conf: 48.0.0.0/16 over an ECMP route
to 10.0.2.2 and 10.0.2.3 (static neighbors with two MACs on TRex's port
1), so the split shows as the destination MACs TRex port 1 receives;
with several workers and rx_queues, RSS spreads the flows over them
(`vbrctl show workers`). Tunables: size (frame bytes), flows.
"""

from trex.stl.api import *  # noqa: F401,F403

from vbrd_addr import host, nth, pad_to


class VbrdFlows:
    """One stream, FLOWS source addresses x random source ports."""

    def get_streams(self, direction=0, size=64, flows=65536, **kwargs):
        size, flows = int(size), max(2, int(flows))
        base = Ether() / IP(src=host(direction, 0, 1), dst=host(direction, 1, 1)) / \
            UDP(sport=1024, dport=4000)
        vm = [STLVmFlowVar(name="src", min_value=host(direction, 0, 1),
                           max_value=nth(direction, 0, flows), size=4, op="inc"),
              STLVmFlowVar(name="sport", min_value=1024, max_value=65535, size=2, op="random"),
              STLVmWrFlowVar(fv_name="src", pkt_offset="IP.src"),
              STLVmWrFlowVar(fv_name="sport", pkt_offset="UDP.sport"),
              STLVmFixChecksumHw(l3_offset="IP", l4_offset="UDP",
                                 l4_type=CTRexVmInsFixHwCs.L4_TYPE_UDP)]
        return [STLStream(name="flows", packet=STLPktBuilder(pkt=pad_to(base, size), vm=vm),
                          mode=STLTXCont(pps=1), flow_stats=STLFlowStats(pg_id=1))]


def register():
    return VbrdFlows()
