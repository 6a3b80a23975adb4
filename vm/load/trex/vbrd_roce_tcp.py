"""RoCEv2 next to TCP on one line: the split of conf/examples/qos-roce-tcp.conf.

Three streams, 80 % of the packets RoCE and 20 % TCP by default:
- rocev2: RDMA WRITE Only packets (BTH opcode 0x0A, then the RETH that
  opcode requires) to UDP 4791, DSCP 26
  with ECT(0) as RoCE NICs mark them for ECN, UDP source port over FLOWS
  values (the entropy RoCE NICs put there), a 4-byte ICRC placeholder;
- cnp: RoCE congestion notification packets (BTH opcode 0x81), DSCP 48;
- tcp: TCP ACK segments to port 5201, DSCP 0, FLOWS source ports.

  trex> start -f vm/load/trex/vbrd_roce_tcp.py -m 1mpps --port 0
  trex> start -f vm/load/trex/vbrd_roce_tcp.py -m 1mpps --port 0 -t roce_share=50

Pairs with vm/load/conf/vbrd_roce_tcp.conf: classes rocev2, cnp and tcp
put them in the businesses roce (guaranteed 80 %, priority 0) and tcp
(20 %). pg_ids 10 (rocev2), 11 (cnp, latency) and 20 (tcp). Tunables:
payload (RoCE payload bytes, a multiple of 4), tcp_payload, flows,
roce_share (percent of packets that are RoCE data).

The ICRC is left zero: a DUT does not check it (a RoCE NIC would drop
the packet, so don't aim these at one).
"""

import struct

from trex.stl.api import *  # noqa: F401,F403

from vbrd_addr import host

ROCE_PORT = 4791
DSCP_ROCE, DSCP_CNP = 26, 48
ECT0 = 2


def bth(opcode, dest_qp, psn, ack_req=False):
    """A 12-byte InfiniBand Base Transport Header (IBTA vol. 1, 9.2)."""
    flags = 0x40  # migration state (M) set, pad count 0, header version 0
    return struct.pack("!BBHII", opcode, flags, 0xFFFF, dest_qp & 0xFFFFFF,
                       (0x80000000 if ack_req else 0) | (psn & 0xFFFFFF))


def reth(vaddr, rkey, length):
    """A 16-byte RDMA Extended Transport Header (IBTA vol. 1, 9.3.3.2):
    virtual address, R_Key, DMA length. RDMA WRITE First/Only carry it."""
    return struct.pack("!QII", vaddr, rkey, length)


class VbrdRoceTcp:
    """RoCEv2 data, CNPs and TCP segments."""

    def get_streams(self, direction=0, payload=1024, tcp_payload=1024, flows=64,
                    roce_share=80, **kwargs):
        payload, tcp_payload = int(payload), int(tcp_payload)
        if payload % 4:
            raise ValueError("payload %d: a multiple of 4 (the BTH's pad count is 0)" % payload)
        flows, roce_share = max(1, int(flows)), int(roce_share)
        src, dst = host(direction, 0, 1), host(direction, 1, 1)
        sport_var = [STLVmFlowVar(name="sport", min_value=49152,
                                  max_value=49152 + flows - 1, size=2, op="inc"),
                     STLVmWrFlowVar(fv_name="sport", pkt_offset="UDP.sport")]

        roce = Ether() / IP(src=src, dst=dst, tos=DSCP_ROCE << 2 | ECT0) / \
            UDP(sport=49152, dport=ROCE_PORT, chksum=0) / \
            Raw(bth(0x0A, 0x000123, 0) + reth(0x10000, 0x1234, payload) +
                b"\x5a" * payload + b"\0\0\0\0")
        cnp = Ether() / IP(src=src, dst=dst, tos=DSCP_CNP << 2) / \
            UDP(sport=49152, dport=ROCE_PORT, chksum=0) / \
            Raw(bth(0x81, 0x000123, 0) + b"\0" * 16 + b"\0\0\0\0")
        tcp = Ether() / IP(src=src, dst=dst, tos=0) / \
            TCP(sport=40000, dport=5201, flags="A", seq=1, ack=1, window=65535) / \
            Raw(b"t" * tcp_payload)
        tcp_vm = [STLVmFlowVar(name="sport", min_value=40000, max_value=40000 + flows - 1,
                               size=2, op="inc"),
                  STLVmWrFlowVar(fv_name="sport", pkt_offset="TCP.sport"),
                  STLVmFixChecksumHw(l3_offset="IP", l4_offset="TCP",
                                     l4_type=CTRexVmInsFixHwCs.L4_TYPE_TCP)]
        return [
            STLStream(name="rocev2", packet=STLPktBuilder(pkt=roce, vm=sport_var),
                      mode=STLTXCont(pps=roce_share), flow_stats=STLFlowStats(pg_id=10)),
            STLStream(name="cnp", packet=STLPktBuilder(pkt=cnp),
                      mode=STLTXCont(pps=1), flow_stats=STLFlowLatencyStats(pg_id=11)),
            STLStream(name="tcp", packet=STLPktBuilder(pkt=tcp, vm=tcp_vm),
                      mode=STLTXCont(pps=100 - roce_share), flow_stats=STLFlowStats(pg_id=20)),
        ]


def register():
    return VbrdRoceTcp()
