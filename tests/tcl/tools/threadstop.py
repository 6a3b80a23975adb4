#!/usr/bin/env python3
"""Stop one thread of a process for a while, the others running on.

    threadstop.py --tid TID --ms MS

SIGSTOP stops every thread of a process; this stops only TID (ptrace:
PTRACE_SEIZE, PTRACE_INTERRUPT, and PTRACE_DETACH after MS ms), as a
control thread kept off its CPU would be while the workers forward. Prints
"threadstop: stopped TID" once the thread is stopped, "threadstop:
resumed TID after N ms" at the end. If this process dies meanwhile, the
kernel detaches and the thread runs again. Needs root (CAP_SYS_PTRACE).
"""
import argparse
import ctypes
import os
import sys
import time

PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
WALL = 0x40000000

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


def ptrace(req, tid):
    if libc.ptrace(req, tid, None, None) < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"ptrace({req:#x}, {tid}): {os.strerror(e)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tid", type=int, required=True)
    ap.add_argument("--ms", type=float, required=True)
    a = ap.parse_args()
    ptrace(PTRACE_SEIZE, a.tid)
    ptrace(PTRACE_INTERRUPT, a.tid)
    os.waitpid(a.tid, WALL)
    t0 = time.monotonic()
    print(f"threadstop: stopped {a.tid}", flush=True)
    time.sleep(a.ms / 1000.0)
    ptrace(PTRACE_DETACH, a.tid)
    print(f"threadstop: resumed {a.tid} after {(time.monotonic() - t0) * 1000:.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
