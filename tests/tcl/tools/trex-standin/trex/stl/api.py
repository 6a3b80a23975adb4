"""A STAND-IN for TRex's stateless API (trex.stl.api), for vbrd's tests ONLY.

This is not TRex and sends nothing. It implements just the part of the
API that vm/load/trex/*.py and vm/load/ndr-pdr.py use, so that `make test`
can build their streams on a machine without TRex (TRex is not in Debian):

- STLPktBuilder over scapy, STLStream, STLTXCont, STLTXSingleBurst,
  STLProfile (and STLProfile.load_py, as trex-console loads a profile);
- the field engine: STLVmFlowVar, STLVmWrFlowVar, STLVmFixIpv4,
  STLVmFixChecksumHw are evaluated per packet (standin_packets());
- STLFlowStats / STLFlowLatencyStats record their pg_id;
- STLClient simulates a DUT with a known capacity and loss curve
  (TREX_STANDIN_DUT="ndr=PPS,pdr=PPS"), for ndr-pdr.py's search.

Anything else raises: an argument or a call the stand-in does not know is
an error, never ignored, so a profile cannot pass here while using an API
this file does not check. Written from TRex's documentation; no TRex code.
"""

import importlib.util
import os
import random
import struct
import sys

from scapy.all import *  # noqa: F401,F403 -- TRex's api exports scapy's layers too
from scapy.all import NoPayload, Packet, raw

# RFC 1071's checksum from the test tools this stand-in lives among
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..")))
from inetcsum import inet_csum  # noqa: E402


class STLError(Exception):
    """TRex's error type (TRexError in trex.common)."""


TRexError = STLError


def _standin_only(what, kwargs):
    """Raise for keyword arguments the stand-in does not implement."""
    if kwargs:
        raise NotImplementedError("TRex stand-in: %s: unsupported argument(s) %s"
                                  % (what, ", ".join(sorted(kwargs))))


def _ip2int(v):
    if isinstance(v, str):
        a = [int(x) for x in v.split(".")]
        if len(a) != 4:
            raise STLError("not an IPv4 address: %r" % v)
        return (a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]
    return int(v)


# Offsets of the fields profiles write, from the start of their layer.
# STLVmWrFlowVar(pkt_offset="LAYER[:N].field"): any other field raises.
_FIELD_OFFSETS = {
    "Ether": {"dst": 0, "src": 6, "type": 12},
    "IP": {"tos": 1, "len": 2, "id": 4, "ttl": 8, "proto": 9, "chksum": 10,
           "src": 12, "dst": 16},
    "UDP": {"sport": 0, "dport": 2, "len": 4, "chksum": 6},
    "TCP": {"sport": 0, "dport": 2, "seq": 4, "ack": 8},
    "VXLAN": {"vni": 4},
}


def _layer_offset(pkt, spec):
    """Byte offset of layer SPEC ("IP", "IP:1") in scapy packet PKT."""
    name, _, idx = spec.partition(":")
    want = int(idx or 0)
    seen = 0
    layer = pkt
    total = len(raw(pkt))
    while isinstance(layer, Packet) and not isinstance(layer, NoPayload):
        if layer.__class__.__name__ == name:
            if seen == want:
                return total - len(raw(layer))
            seen += 1
        layer = layer.payload
    raise STLError("TRex stand-in: no layer %r in %s" % (spec, pkt.summary()))


def _resolve_offset(pkt, spec):
    if isinstance(spec, int):
        return spec
    lay, _, field = spec.partition(".")
    if field == "":
        return _layer_offset(pkt, lay)
    name = lay.partition(":")[0]
    if name not in _FIELD_OFFSETS or field not in _FIELD_OFFSETS[name]:
        raise NotImplementedError("TRex stand-in: field offset %r not known" % spec)
    return _layer_offset(pkt, lay) + _FIELD_OFFSETS[name][field]


class STLVmFlowVar:
    """A flow variable: op "inc", "dec" or "random" between min and max."""

    def __init__(self, name, init_value=None, min_value=0, max_value=255, size=4,
                 step=1, op="inc", **kwargs):
        _standin_only("STLVmFlowVar", kwargs)
        if op not in ("inc", "dec", "random"):
            raise NotImplementedError("TRex stand-in: STLVmFlowVar op %r" % op)
        if size not in (1, 2, 4, 8):
            raise STLError("STLVmFlowVar size %r" % size)
        self.name, self.size, self.step, self.op = name, size, int(step), op
        self.min, self.max = _ip2int(min_value), _ip2int(max_value)
        if self.min > self.max:
            raise STLError("STLVmFlowVar %s: min above max" % name)
        self.init = self.min if init_value is None else _ip2int(init_value)


class STLVmWrFlowVar:
    """Write a flow variable into the packet at pkt_offset."""

    def __init__(self, fv_name, pkt_offset, offset_fixup=0, add_val=0, is_big=True,
                 **kwargs):
        _standin_only("STLVmWrFlowVar", kwargs)
        if not is_big:
            raise NotImplementedError("TRex stand-in: little-endian writes")
        self.fv_name, self.pkt_offset = fv_name, pkt_offset
        self.offset_fixup, self.add_val = offset_fixup, add_val


class STLVmFixIpv4:
    """Recompute the IPv4 header checksum of the header at offset."""

    def __init__(self, offset, **kwargs):
        _standin_only("STLVmFixIpv4", kwargs)
        self.offset = offset


class CTRexVmInsFixHwCs:
    """L4 types of STLVmFixChecksumHw (TRex's values)."""
    L4_TYPE_UDP = 11
    L4_TYPE_TCP = 13
    L4_TYPE_IP = 17


class STLVmFixChecksumHw:
    """Recompute the IPv4 and the UDP/TCP checksum (the NIC does it in TRex)."""

    def __init__(self, l3_offset, l4_offset, l4_type, **kwargs):
        _standin_only("STLVmFixChecksumHw", kwargs)
        if l4_type not in (CTRexVmInsFixHwCs.L4_TYPE_UDP, CTRexVmInsFixHwCs.L4_TYPE_TCP,
                           CTRexVmInsFixHwCs.L4_TYPE_IP):
            raise STLError("STLVmFixChecksumHw l4_type %r" % l4_type)
        self.l3_offset, self.l4_offset, self.l4_type = l3_offset, l4_offset, l4_type


class STLScVmRaw:
    """A list of field-engine instructions."""

    def __init__(self, list_of_commands=None, **kwargs):
        _standin_only("STLScVmRaw", kwargs)
        self.commands = list(list_of_commands or [])


class STLPktBuilder:
    """A packet from a scapy object, and its field engine (vm)."""

    def __init__(self, pkt=None, vm=None, **kwargs):
        _standin_only("STLPktBuilder", kwargs)
        if not isinstance(pkt, Packet):
            raise NotImplementedError("TRex stand-in: STLPktBuilder needs pkt= a scapy packet")
        if vm is None:
            cmds = []
        elif isinstance(vm, STLScVmRaw):
            cmds = vm.commands
        elif isinstance(vm, list):
            cmds = vm
        else:
            raise NotImplementedError("TRex stand-in: vm of type %s" % type(vm).__name__)
        known = (STLVmFlowVar, STLVmWrFlowVar, STLVmFixIpv4, STLVmFixChecksumHw)
        for c in cmds:
            if not isinstance(c, known):
                raise NotImplementedError("TRex stand-in: field engine instruction %s"
                                          % type(c).__name__)
        self.pkt = pkt
        self.vm = cmds
        self.base = raw(pkt)
        # resolve offsets now, as TRex compiles the program when building
        self._wr = []
        for c in cmds:
            if isinstance(c, STLVmWrFlowVar):
                if not any(isinstance(v, STLVmFlowVar) and v.name == c.fv_name for v in cmds):
                    raise STLError("STLVmWrFlowVar: no flow variable %r" % c.fv_name)
                self._wr.append((c, _resolve_offset(pkt, c.pkt_offset) + c.offset_fixup))
            elif isinstance(c, STLVmFixIpv4):
                c._off = _resolve_offset(pkt, c.offset)
            elif isinstance(c, STLVmFixChecksumHw):
                c._l3 = _resolve_offset(pkt, c.l3_offset)
                c._l4 = _resolve_offset(pkt, c.l4_offset)

    def get_pkt_len(self):
        """Length of the packet without FCS."""
        return len(self.base)

    def standin_packets(self, count, seed=1):
        """The first COUNT packets the field engine makes (stand-in only)."""
        rng = random.Random(seed)
        state = {}
        out = []
        vars_ = {c.name: c for c in self.vm if isinstance(c, STLVmFlowVar)}
        wr_off = {id(w): o for w, o in self._wr}
        for i in range(count):
            for v in vars_.values():
                if i == 0 or v.op == "random":
                    state[v.name] = (v.init if v.op != "random"
                                     else rng.randint(v.min, v.max))
                elif v.op == "inc":
                    n = state[v.name] + v.step
                    state[v.name] = v.min + (n - v.min) % (v.max - v.min + 1) if n > v.max else n
                else:
                    n = state[v.name] - v.step
                    state[v.name] = v.max - (v.max - n) % (v.max - v.min + 1) if n < v.min else n
            b = bytearray(self.base)
            for c in self.vm:
                if isinstance(c, STLVmWrFlowVar):
                    off = wr_off[id(c)]
                    v = vars_[c.fv_name]
                    val = (state[c.fv_name] + c.add_val) % (1 << (8 * v.size))
                    b[off:off + v.size] = val.to_bytes(v.size, "big")
                elif isinstance(c, STLVmFixIpv4):
                    self._fix_ip(b, c._off)
                elif isinstance(c, STLVmFixChecksumHw):
                    self._fix_ip(b, c._l3)
                    if c.l4_type != CTRexVmInsFixHwCs.L4_TYPE_IP:
                        self._fix_l4(b, c._l3, c._l4, c.l4_type)
            out.append(bytes(b))
        return out

    @staticmethod
    def _fix_ip(b, off):
        ihl = (b[off] & 0xF) * 4
        b[off + 10:off + 12] = b"\0\0"
        b[off + 10:off + 12] = struct.pack("!H", inet_csum(bytes(b[off:off + ihl])))

    @staticmethod
    def _fix_l4(b, l3, l4, l4_type):
        tot = struct.unpack("!H", b[l3 + 2:l3 + 4])[0]
        seg_len = l3 + tot - l4
        at = l4 + (6 if l4_type == CTRexVmInsFixHwCs.L4_TYPE_UDP else 16)
        b[at:at + 2] = b"\0\0"
        proto = b[l3 + 9]
        pseudo = bytes(b[l3 + 12:l3 + 20]) + struct.pack("!BBH", 0, proto, seg_len)
        c = inet_csum(pseudo + bytes(b[l4:l4 + seg_len]))
        if c == 0 and l4_type == CTRexVmInsFixHwCs.L4_TYPE_UDP:
            c = 0xFFFF
        b[at:at + 2] = struct.pack("!H", c)


class STLTXCont:
    """Continuous transmission at pps (or bps_L1, bps_L2, percentage)."""

    def __init__(self, pps=None, bps_L1=None, bps_L2=None, percentage=None, **kwargs):
        _standin_only("STLTXCont", kwargs)
        given = [(k, v) for k, v in (("pps", pps), ("bps_L1", bps_L1), ("bps_L2", bps_L2),
                                      ("percentage", percentage)) if v is not None]
        if len(given) > 1:
            raise STLError("STLTXCont: one rate only")
        self.rate = given[0] if given else ("pps", 1)


class STLTXSingleBurst:
    """One burst of total_pkts packets."""

    def __init__(self, pps=None, total_pkts=1, **kwargs):
        _standin_only("STLTXSingleBurst", kwargs)
        self.rate = ("pps", 1 if pps is None else pps)
        self.total_pkts = int(total_pkts)


class STLFlowStats:
    """Per-pg_id counters of a stream."""

    def __init__(self, pg_id, **kwargs):
        _standin_only("STLFlowStats", kwargs)
        self.pg_id = int(pg_id)
        self.latency = False


class STLFlowLatencyStats(STLFlowStats):
    """Per-pg_id counters and latency of a stream."""

    def __init__(self, pg_id, **kwargs):
        super().__init__(pg_id, **kwargs)
        self.latency = True


class STLStream:
    """One stream: a packet, its field engine, a TX mode, flow stats."""

    def __init__(self, name=None, packet=None, mode=None, enabled=True, self_start=True,
                 isg=0.0, flow_stats=None, random_seed=0, **kwargs):
        _standin_only("STLStream", kwargs)
        if not isinstance(packet, STLPktBuilder):
            raise STLError("STLStream: packet must be an STLPktBuilder")
        if mode is not None and not isinstance(mode, (STLTXCont, STLTXSingleBurst)):
            raise NotImplementedError("TRex stand-in: TX mode %s" % type(mode).__name__)
        if flow_stats is not None and not isinstance(flow_stats, STLFlowStats):
            raise STLError("STLStream: flow_stats must be STLFlowStats/STLFlowLatencyStats")
        if not self_start or not enabled:
            raise NotImplementedError("TRex stand-in: streams not started by themselves")
        self.name = name
        self.packet = packet
        self.mode = mode if mode is not None else STLTXCont(pps=1)
        self.isg = isg
        self.flow_stats = flow_stats
        self.random_seed = random_seed

    def get_name(self):
        """The stream's name."""
        return self.name

    def get_pg_id(self):
        """Stand-in only: the pg_id of its flow stats, or None."""
        return self.flow_stats.pg_id if self.flow_stats else None


class STLProfile:
    """A list of streams."""

    def __init__(self, streams=None):
        if isinstance(streams, STLStream):
            streams = [streams]
        self.streams = list(streams or [])
        for s in self.streams:
            if not isinstance(s, STLStream):
                raise STLError("STLProfile: not a stream: %r" % (s,))
        pgs = [s.get_pg_id() for s in self.streams if s.get_pg_id() is not None]
        if len(pgs) != len(set(pgs)):
            raise STLError("STLProfile: a pg_id used by two streams")

    def get_streams(self):
        """The streams."""
        return self.streams

    @staticmethod
    def load_py(python_file, direction=0, port_id=0, **kwargs):
        """Load a profile module as trex-console does: register().get_streams()."""
        if not os.path.isfile(python_file):
            raise STLError("File '%s' does not exist" % python_file)
        name = os.path.splitext(os.path.basename(python_file))[0]
        basedir = os.path.dirname(os.path.abspath(python_file))
        if basedir not in sys.path:
            sys.path.insert(0, basedir)  # as TRex: a profile may import its siblings
        # TRex >= 2.89 also passes the tunables as an argparse list
        # ("--size", "64", ...) in `tunables`: a profile's get_streams
        # must take **kwargs (or tunables) to load there
        if "tunables" not in kwargs:
            kwargs["tunables"] = [w for k, v in kwargs.items() for w in ("--" + k, str(v))]
        spec = importlib.util.spec_from_file_location(name, python_file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        streams = mod.register().get_streams(direction=direction, port_id=port_id, **kwargs)
        return STLProfile(streams)


def _parse_mult(mult):
    """'10mpps', '500kpps', '1000pps' -> packets/s; others raise."""
    m = str(mult).strip().lower()
    for suffix, scale in (("mpps", 1e6), ("kpps", 1e3), ("pps", 1.0)):
        if m.endswith(suffix):
            return float(m[:-len(suffix)]) * scale
    raise NotImplementedError("TRex stand-in: mult %r (only N[k|m]pps)" % mult)


class STLClient:
    """A simulated TRex server and DUT: no packet is sent.

    The DUT's loss curve comes from TREX_STANDIN_DUT="ndr=PPS,pdr=PPS": no
    loss up to ndr, a loss ratio rising linearly to 0.5 % at pdr, and above
    pdr everything over pdr is lost on top of that. Traffic from port p is
    received on port p ^ 1.
    """

    def __init__(self, server="localhost", **kwargs):
        _standin_only("STLClient", kwargs)
        spec = dict(kv.split("=") for kv in os.environ.get("TREX_STANDIN_DUT", "").split(",") if kv)
        if "ndr" not in spec or "pdr" not in spec:
            raise STLError("TRex stand-in: set TREX_STANDIN_DUT=ndr=PPS,pdr=PPS")
        self.ndr, self.pdr = float(spec["ndr"]), float(spec["pdr"])
        self.server = server
        self.connected = False
        self.streams = {}
        self.stats = {}
        self.trials = []

    def _need(self):
        if not self.connected:
            raise STLError("not connected")

    def loss_ratio(self, pps):
        """The simulated DUT's loss ratio at PPS offered."""
        if pps <= self.ndr:
            return 0.0
        if pps <= self.pdr:
            return 0.005 * (pps - self.ndr) / (self.pdr - self.ndr)
        return 0.005 + (pps - self.pdr) / pps * 0.995

    def connect(self):
        self.connected = True

    def disconnect(self):
        self.connected = False

    def reset(self, ports=None):
        self._need()
        self.streams = {}
        self.clear_stats()

    def add_streams(self, streams, ports=None):
        self._need()
        for p in ports if ports is not None else [0]:
            self.streams.setdefault(p, []).extend(streams)

    def remove_all_streams(self, ports=None):
        self._need()
        for p in ports if ports is not None else list(self.streams):
            self.streams.pop(p, None)

    def clear_stats(self, ports=None):
        self.stats = {}

    def start(self, ports=None, mult="1", duration=-1, force=False):
        self._need()
        if duration is None or duration <= 0:
            raise NotImplementedError("TRex stand-in: start() needs a duration")
        pps = _parse_mult(mult)
        for p in ports:
            if not self.streams.get(p):
                raise STLError("port %d has no streams" % p)
            tx = int(round(pps * duration))
            rx = int(round(tx * (1 - self.loss_ratio(pps))))
            self.stats.setdefault(p, {"opackets": 0, "ipackets": 0})
            self.stats.setdefault(p ^ 1, {"opackets": 0, "ipackets": 0})
            self.stats[p]["opackets"] += tx
            self.stats[p ^ 1]["ipackets"] += rx
            self.trials.append((pps, duration))

    def wait_on_traffic(self, ports=None, timeout=None):
        self._need()

    def stop(self, ports=None):
        self._need()

    def get_stats(self, ports=None):
        self._need()
        return {p: dict(s) for p, s in self.stats.items()}
