#!/usr/bin/python3
"""Build a containerlab topology as network namespaces, without containers.

Usage:
  clab-ns.py up   [-t TOPO] [--prefix P] [--state DIR]
  clab-ns.py down [-t TOPO] [--prefix P] [--state DIR]
  clab-ns.py exec [-t TOPO] [--prefix P] [--state DIR] NODE -- CMD [ARG...]
  clab-ns.py check [-t TOPO]

It reads the same *.clab.yml that `containerlab deploy` reads and does
what containerlab would, with a network namespace where containerlab has
a container:

- one namespace PREFIX-NODE per node (PREFIX default clab-NAME, NAME the
  topology's name, as containerlab's container names);
- each node's process in its namespace, in a private mount namespace with
  a fresh /run, no hugetlbfs and a writable /etc (an overlay over the
  host's, upper layer in memory) where the node's `binds` are mounted; a node of the vbrd image
  runs the image's ENTRYPOINT, which the Containerfile beside this file
  copies from vm/clab/entrypoint.sh (that file is run), with the node's
  `env`, CLAB_INTFS (its number of links) and VBRD_BIN (this tool's own
  environment, default /usr/sbin/vbrd); a node with `entrypoint` runs that
  command instead;
- then the links: a veth pair per link, each end named as its endpoint
  (eth1, eth2 ...) inside its node's namespace, both up, MTU 9500 as
  containerlab's default (or the link's `mtu`); so the nodes start before
  their interfaces exist, as under containerlab;
- then each node's `exec` commands, in order, inside the node (not through
  a shell, as containerlab).

Anything of the topology it does not implement is an error, never ignored,
so that the topology the tests run is the one users deploy. `down` stops
the nodes' processes (TERM, then KILL after 5 s) and deletes the
namespaces (and with them the veths); it can always be run. `exec` is
`docker exec` here: CMD inside NODE's namespaces, with its environment.
State (pids, each node's output NODE.log) lives in --state (default
/tmp/clab-ns/PREFIX; not under /run, which each node mounts afresh). Needs root, python3-yaml, iproute2, util-linux.
"""

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
VBRD_IMAGE = "vbrd:latest"
NODE_KEYS = {"kind", "image", "binds", "env", "exec", "entrypoint"}
LINK_KEYS = {"endpoints", "mtu"}
DEFAULT_MTU = 9500
STOP_S = 5.0


class TopoError(Exception):
    """A topology, Containerfile or state this tool cannot run."""


def fail(msg):
    """Print one line to stderr and exit 1."""
    print(f"clab-ns: {msg}", file=sys.stderr)
    sys.exit(1)


def containerfile_entrypoint(path):
    """The host file that the Containerfile's ENTRYPOINT runs.

    ENTRYPOINT must be an exec-form list of one path, and a COPY line must
    copy a file of this tree to that path: that file is returned.
    """
    copies = {}
    entry = None
    with open(path, encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "COPY" and len(words) == 3:
            copies[words[2]] = words[1]
        elif words[0] == "ENTRYPOINT":
            m = re.fullmatch(r'ENTRYPOINT\s+\[\s*"([^"]+)"\s*\]', line.strip())
            if not m:
                raise TopoError(f"{path}: ENTRYPOINT must be [\"/one/path\"]: {line.strip()}")
            entry = m.group(1)
    if entry is None:
        raise TopoError(f"{path}: no ENTRYPOINT")
    if entry not in copies:
        raise TopoError(f"{path}: no COPY puts a file at the ENTRYPOINT {entry}")
    src = os.path.join(TOP, copies[entry])
    if not os.path.isfile(src):
        raise TopoError(f"{path}: ENTRYPOINT {entry} is copied from {copies[entry]}, which is not a file")
    return src


def _str_list(where, v):
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TopoError(f"{where}: want a list of strings")
    return v


def _env_texts(where, text, node):
    """NODE's env as containerlab reads it: each value the scalar's text.

    containerlab's env is a map of strings, so `no`, `0x10`, `1.10` and an
    empty value reach the node as written ("no", "0x10", "1.10", ""), not
    as YAML 1.1 reads them (False, 16, 1.1, None)."""
    def get(mapping, key):
        for k, v in mapping.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
        raise TopoError(f"{where}: env: not found in the YAML tree")
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    env = get(get(get(root, "topology"), "nodes"), node)
    env = get(env, "env")
    out = {}
    for k, v in env.value:
        if k.value == "<<":
            raise TopoError(f"{where}: env: merge keys (<<) are not implemented")
        if not isinstance(v, yaml.ScalarNode):
            raise TopoError(f"{where}: env {k.value}: want a scalar")
        out[k.value] = "" if v.tag == "tag:yaml.org,2002:null" else v.value
    return out


def _known_keys(where, mapping, known, what="key '{}'"):
    """Refuse MAPPING (a dict, or WHERE says it is not one) when it has a
    key outside KNOWN: what this tool does not implement is an error."""
    if not isinstance(mapping, dict):
        raise TopoError(f"{where}: want a mapping")
    for k in mapping:
        if k not in known:
            raise TopoError(f"{where}: {what.format(k)} is not implemented")


def load(topo_path):
    """Read and check a topology; return a dict name, dir, nodes, links.

    nodes: name -> dict kind image binds env exec entrypoint intfs (the
    node's interface names, sorted). links: list of (node_a, if_a,
    node_b, if_b, mtu). Raises TopoError for anything not implemented.
    """
    with open(topo_path, encoding="utf-8") as f:
        text = f.read()
    # containerlab expands $VAR and ${VAR:=default} anywhere in the file
    for n, line in enumerate(text.splitlines(), 1):
        m = re.search(r"\$(\{[^}]*\}?|[A-Za-z_]\w*)", line)
        if m and not line.lstrip().startswith("#"):
            raise TopoError(f"{topo_path}:{n}: environment variable expansion ({m.group(0)}) "
                            f"is not implemented")
    t = yaml.safe_load(text)
    _known_keys(topo_path, t, ("name", "topology"), "top-level key '{}'")
    name = t.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", name):
        raise TopoError(f"{topo_path}: name: want 1..32 of [A-Za-z0-9_-]")
    topo = t.get("topology")
    if topo is None:
        raise TopoError(f"{topo_path}: no topology")
    _known_keys(f"{topo_path}: topology", topo, ("nodes", "links"), "topology.{}")
    raw_nodes = topo.get("nodes")
    if not isinstance(raw_nodes, dict) or not raw_nodes:
        raise TopoError(f"{topo_path}: topology.nodes: want a mapping of nodes")
    nodes = {}
    for nn, nd in raw_nodes.items():
        where = f"{topo_path}: node {nn}"
        if not isinstance(nn, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,14}", nn):
            raise TopoError(f"{where}: name: want 1..15 of [a-z0-9-]")
        _known_keys(where, nd, NODE_KEYS)
        if nd.get("kind") != "linux":
            raise TopoError(f"{where}: kind '{nd.get('kind')}': only linux is implemented")
        env = nd.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(k, str) for k in env):
            raise TopoError(f"{where}: env: want a mapping")
        env = _env_texts(where, text, nn) if env else {}
        for k in env:
            if k.startswith("CLAB_"):
                raise TopoError(f"{where}: env {k}: CLAB_ variables are containerlab's")
        entry = nd.get("entrypoint")
        if entry is not None and not isinstance(entry, str):
            raise TopoError(f"{where}: entrypoint: want a string")
        image = nd.get("image")
        if image != VBRD_IMAGE:
            raise TopoError(f"{where}: image '{image}': only {VBRD_IMAGE} is implemented")
        binds = []
        for b in _str_list(f"{where}: binds", nd.get("binds", [])):
            parts = b.split(":")
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in ("ro", "rw")):
                raise TopoError(f"{where}: bind '{b}': want SRC:DST or SRC:DST:ro|rw")
            src = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(topo_path)), parts[0]))
            dst = parts[1]
            if not dst.startswith("/etc/") or ".." in dst.split("/"):
                raise TopoError(f"{where}: bind '{b}': only targets under /etc/ are implemented")
            # the node's /etc is an overlay over the host's: a symlink of the
            # host's /etc on the way would put the mount point (an empty file
            # or directories) in the host's file system, outside /etc
            real = os.path.realpath(dst)
            if not real.startswith("/etc/"):
                raise TopoError(f"{where}: bind '{b}': {dst} leads to {real} through a "
                                f"symlink of the host's /etc: only targets under /etc/ are implemented")
            if not os.path.exists(src):
                raise TopoError(f"{where}: bind '{b}': {src} does not exist")
            binds.append((src, dst, len(parts) == 3 and parts[2] == "ro"))
        nodes[nn] = {"env": env, "entrypoint": entry, "binds": binds,
                     "exec": _str_list(f"{where}: exec", nd.get("exec", [])), "intfs": []}
    links = []
    for i, lk in enumerate(topo.get("links", []) or []):
        where = f"{topo_path}: links[{i}]"
        _known_keys(where, lk, LINK_KEYS)
        eps = _str_list(f"{where}: endpoints", lk.get("endpoints"))
        if len(eps) != 2:
            raise TopoError(f"{where}: endpoints: want two")
        mtu = lk.get("mtu", DEFAULT_MTU)
        if not isinstance(mtu, int) or not 68 <= mtu <= 65535:
            raise TopoError(f"{where}: mtu: want 68..65535")
        ends = []
        for ep in eps:
            m = re.fullmatch(r"([^:]+):(eth[1-9][0-9]*)", ep)
            if not m:
                raise TopoError(f"{where}: endpoint '{ep}': want NODE:ethN, N >= 1")
            nn, ifn = m.groups()
            if nn not in nodes:
                raise TopoError(f"{where}: endpoint '{ep}': no node {nn}")
            if ifn in nodes[nn]["intfs"]:
                raise TopoError(f"{where}: endpoint '{ep}': {ifn} is already linked")
            nodes[nn]["intfs"].append(ifn)
            ends.extend([nn, ifn])
        links.append((*ends, mtu))
    for nn, nd in nodes.items():
        nd["intfs"].sort(key=lambda s: int(s[3:]))
        want = [f"eth{i}" for i in range(1, len(nd["intfs"]) + 1)]
        if nd["entrypoint"] is None and nd["intfs"] != want:
            raise TopoError(f"{topo_path}: node {nn}: interfaces {nd['intfs']}: the vbrd "
                            f"entrypoint waits for eth1..eth{len(want)} (CLAB_INTFS), so they must be those")
    return {"name": name, "nodes": nodes, "links": links}


def run(cmd, **kw):
    """Run CMD (a list); raise TopoError with its output if it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise TopoError(f"`{shlex.join(cmd)}` failed: {(p.stdout + p.stderr).strip()}")
    return p.stdout


class Lab:
    """A topology and where it runs: namespaces PREFIX-NODE, files in STATE."""

    def __init__(self, topo_path, prefix, state):
        self.topo_path = topo_path
        self.t = load(topo_path)
        self.prefix = prefix or f"clab-{self.t['name']}"
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", self.prefix):
            raise TopoError(f"prefix '{self.prefix}': want 1..40 of [A-Za-z0-9_.-]")
        # not under /run: a node mounts a fresh /run over it, and its
        # overlay's upper layer lives here
        self.state = state or f"/tmp/clab-ns/{self.prefix}"

    def ns(self, node):
        """The network namespace of NODE."""
        return f"{self.prefix}-{node}"

    def pidfile(self, node):
        return os.path.join(self.state, f"{node}.pid")

    def env(self, node):
        """NODE's environment, as its container would have it."""
        nd = self.t["nodes"][node]
        e = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
             "HOME": "/root", "HOSTNAME": node,
             "CLAB_INTFS": str(len(nd["intfs"])), "CLAB_LABEL_CLAB_NODE_NAME": node,
             # absolute: the nodes run from /
             "VBRD_BIN": os.path.abspath(os.environ.get("VBRD_BIN", "/usr/sbin/vbrd"))}
        e.update(nd["env"])
        return e

    def _setup_script(self, node):
        """Shell text run in the node's private mount namespace before its
        entrypoint: /run fresh, hugetlbfs unmounted, /etc an overlay, the
        binds, the hostname."""
        nd = self.t["nodes"][node]
        mnt = os.path.join(self.state, f"{node}.mnt")
        q = shlex.quote
        s = ["set -eu",
             "mount -t tmpfs -o mode=0755 clab-run /run",
             # no hugetlbfs, as in a container without a hugepages bind
             "for m in $(awk '$3 == \"hugetlbfs\" { print $2 }' /proc/mounts); do umount -l \"$m\"; done",
             f"mount -t tmpfs clab-etc {q(mnt)}",
             f"mkdir {q(mnt + '/upper')} {q(mnt + '/work')}",
             f"mount -t overlay clab-etc -o lowerdir=/etc,upperdir={q(mnt + '/upper')},"
             f"workdir={q(mnt + '/work')} /etc"]
        for src, dst, ro in nd["binds"]:
            # checked again here: an earlier bind may have brought a symlink
            s.append(f'case "$(realpath -m -- {q(dst)})" in /etc/*) ;; *) echo "clab-ns: bind '
                     f'target {q(dst)} leads out of /etc through a symlink" >&2; exit 1 ;; esac')
            s.append(f"mkdir -p {q(os.path.dirname(dst))}")
            s.append(f"mkdir -p {q(dst)}" if os.path.isdir(src) else f": >> {q(dst)}")
            s.append(f"mount --bind {q(src)} {q(dst)}")
            if ro:
                s.append(f"mount -o remount,bind,ro {q(dst)}")
        s.append(f"hostname {q(node)}")
        s.append('exec "$@"')
        return "\n".join(s)

    def _node_argv(self, node):
        nd = self.t["nodes"][node]
        if nd["entrypoint"] is not None:
            return shlex.split(nd["entrypoint"])
        return [containerfile_entrypoint(os.path.join(HERE, "Containerfile"))]

    def pid(self, node):
        """Pid of NODE's process (its init), or None when it is not running."""
        try:
            with open(self.pidfile(node), encoding="ascii") as f:
                pid = int(f.read())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return None
        except OSError:
            return None
        return pid

    def up(self):
        """Create the namespaces, start the nodes, wire the links, run exec."""
        existing = set(run(["ip", "netns", "list"]).split())
        for node in self.t["nodes"]:
            if self.ns(node) in existing:
                raise TopoError(f"namespace {self.ns(node)} exists: run `down` first")
        os.makedirs(self.state, exist_ok=True)
        for node in self.t["nodes"]:
            ns = self.ns(node)
            run(["ip", "netns", "add", ns])
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
        for node in self.t["nodes"]:
            os.makedirs(os.path.join(self.state, f"{node}.mnt"), exist_ok=True)
            argv = self._node_argv(node)
            with open(os.path.join(self.state, f"{node}.log"), "ab") as log:
                p = subprocess.Popen(
                    ["ip", "netns", "exec", self.ns(node), "unshare", "-m", "-u",
                     "--propagation", "private", "sh", "-c", self._setup_script(node),
                     "clab-node", *argv],
                    env=self.env(node), stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, start_new_session=True, cwd="/")
            with open(self.pidfile(node), "w", encoding="ascii") as f:
                f.write(f"{p.pid}\n")
        for a, ifa, b, ifb, mtu in self.t["links"]:
            run(["ip", "link", "add", ifa, "netns", self.ns(a), "mtu", str(mtu), "type", "veth",
                 "peer", "name", ifb, "netns", self.ns(b), "mtu", str(mtu)])
            run(["ip", "-n", self.ns(a), "link", "set", ifa, "up"])
            run(["ip", "-n", self.ns(b), "link", "set", ifb, "up"])
        for node, nd in self.t["nodes"].items():
            for cmd in nd["exec"]:
                self._wait_mounted(node)
                run(self._enter(node) + shlex.split(cmd), env=self.env(node))
        for node in self.t["nodes"]:
            if self.pid(node) is None:
                raise TopoError(f"node {node} exited at start: "
                                f"{self._log_tail(node)}")
        print(f"clab-ns: {self.t['name']} up: " +
              ", ".join(f"{n} ({self.ns(n)})" for n in self.t["nodes"]))

    def _log_tail(self, node):
        try:
            with open(os.path.join(self.state, f"{node}.log"), encoding="utf-8",
                      errors="replace") as f:
                return " | ".join(f.read().strip().splitlines()[-3:])
        except OSError:
            return "(no log)"

    def _wait_mounted(self, node):
        """Wait until NODE's setup has exec'd its entrypoint (its mounts are
        in place): its process is no longer the `sh -c` of the setup."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            pid = self.pid(node)
            if pid is None:
                raise TopoError(f"node {node} is not running: {self._log_tail(node)}")
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv0 = f.read().split(b"\0")[0]
            except OSError:
                argv0 = b""
            if argv0 not in (b"ip", b"unshare", b"sh"):
                return pid
            time.sleep(0.02)
        raise TopoError(f"node {node}: its set-up did not finish within 10 s")

    def _enter(self, node):
        pid = self._wait_mounted(node)
        # -r: the node's root, which is this tool's (also in a chroot)
        return ["nsenter", "-t", str(pid), "-n", "-m", "-u", "-r", "--"]

    def exec(self, node, cmd):
        """Run CMD inside NODE as `docker exec` would; return its exit status."""
        if node not in self.t["nodes"]:
            raise TopoError(f"no node {node} in {self.topo_path}")
        if self.pid(node) is None:
            raise TopoError(f"node {node} is not running")
        return subprocess.run(self._enter(node) + cmd, env=self.env(node), check=False).returncode

    def down(self):
        """Stop every node and delete its namespace; never stops half-way."""
        pids = {}
        for node in self.t["nodes"]:
            pid = self.pid(node)
            if pid is not None:
                pids[node] = pid
                try:
                    os.killpg(pid, signal.SIGTERM)
                except OSError:
                    pass
        deadline = time.monotonic() + STOP_S
        for node, pid in pids.items():
            while self.pid(node) is not None and time.monotonic() < deadline:
                time.sleep(0.02)
            if self.pid(node) is not None:
                print(f"clab-ns: {node}: still running {STOP_S:.0f} s after SIGTERM: killed",
                      file=sys.stderr)
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
        existing = set(subprocess.run(["ip", "netns", "list"], capture_output=True,
                                      text=True, check=False).stdout.split())
        for node in self.t["nodes"]:
            ns = self.ns(node)
            if ns in existing:
                left = subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                      text=True, check=False).stdout.split()
                for p in left:
                    try:
                        os.kill(int(p), signal.SIGKILL)
                    except (OSError, ValueError):
                        pass
                subprocess.run(["ip", "netns", "del", ns], check=False)
            for f in (self.pidfile(node),):
                if os.path.exists(f):
                    os.unlink(f)
            mnt = os.path.join(self.state, f"{node}.mnt")
            if os.path.isdir(mnt):
                os.rmdir(mnt)
        print(f"clab-ns: {self.t['name']} down ({', '.join(pids) or 'no node was running'})")


def main():
    """Parse the command line and run a subcommand."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("cmd", choices=["up", "down", "exec", "check"])
    ap.add_argument("-t", "--topo", default=os.path.join(HERE, "twosite.clab.yml"))
    ap.add_argument("--prefix", help="namespace name prefix (default clab-NAME)")
    ap.add_argument("--state", help="pids and logs (default /tmp/clab-ns/PREFIX)")
    ap.add_argument("node", nargs="?", help="exec: the node")
    args = sys.argv[1:]
    argv = args[args.index("--") + 1:] if "--" in args else []
    a = ap.parse_intermixed_args(args[:args.index("--")] if "--" in args else args)
    try:
        lab = Lab(a.topo, a.prefix, a.state)
        if a.cmd != "exec" and (a.node is not None or argv):
            raise TopoError(f"{a.cmd} takes no node and no command")
        if a.cmd == "check":
            containerfile_entrypoint(os.path.join(HERE, "Containerfile"))
            print(f"clab-ns: {a.topo}: ok ({len(lab.t['nodes'])} nodes, {len(lab.t['links'])} links)")
        elif a.cmd == "up":
            if os.geteuid() != 0:
                raise TopoError("up needs root")
            # SIGTERM/SIGHUP (kill, a closed terminal) half-way: stop what
            # was started, as for Ctrl-C; not once down has begun
            def stop(signum, _frame):
                raise SystemExit(128 + signum)
            for sig in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, stop)
            try:
                lab.up()
            except BaseException:
                for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                    signal.signal(sig, signal.SIG_IGN)
                lab.down()
                raise
        elif a.cmd == "down":
            lab.down()
        else:
            if a.node is None or not argv:
                raise TopoError("exec NODE -- CMD [ARG...]")
            sys.exit(lab.exec(a.node, argv))
    except (TopoError, OSError, yaml.YAMLError) as e:
        fail(str(e))


if __name__ == "__main__":
    main()
