#!/usr/bin/env python3
"""sample.py - what the e2e benches read of a sender, run in the network
namespace of DEV (the peer, whose received packets are the figure).

  sample.py DEV PGID             one snapshot, process group PGID's CPU
  sample.py DEV --run LOG CMD... CMD run to its end (its output in LOG),
                                 in a process group of its own; three
                                 snapshots: before it starts, when its
                                 first frame has arrived, once it has
                                 ended (then its CPU is its resource
                                 usage); exits with CMD's status

A snapshot is one line: WALL RX SOFTIRQ USER SYSTEM [PID...].  WALL, the time in
seconds; RX, DEV's received packets; SOFTIRQ, the CPU seconds the whole
machine has spent in softirqs (/proc/stat, every CPU: where the peer's
receive runs, in the sender's context or in ksoftirqd); USER and SYSTEM,
the sender's CPU seconds (the live processes of its group, all their
threads; 0 0 before it starts); PID..., those processes (what a profile
counts as the sender's).  The difference of two snapshots is a window:
frames at the peer, and where the CPU went."""
import os
import resource
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def softirq_seconds():
    with open("/proc/stat") as f:
        cpu = f.readline().split()
    # cpu user nice system idle iowait irq softirq ...
    return int(cpu[7]) / TICK


def group(pgid):
    """User and system CPU seconds of the live processes of group pgid,
    and their process ids."""
    user = system = 0
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue  # ended meanwhile
        # After the command name, which may hold blanks and parentheses:
        # state ppid pgrp ... (utime and stime are fields 14 and 15).
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid:
            user += int(fields[11])
            system += int(fields[12])
            pids.append(pid)
    return user / TICK, system / TICK, pids


def rx_packets(dev):
    with open("/sys/class/net/%s/statistics/rx_packets" % dev) as f:
        return int(f.read())


def snapshot(dev, user, system, pids=()):
    return " ".join(["%.6f %d %.2f %.2f %.2f" % (time.time(), rx_packets(dev), softirq_seconds(), user, system),
                     *pids])


def run(dev, log, cmd):
    """Snapshots around cmd, the second at its first frame (the first again
    if cmd ended before its first frame was seen)."""
    before = snapshot(dev, 0, 0)
    rx = rx_packets(dev)
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        while proc.poll() is None and rx_packets(dev) == rx:
            time.sleep(0.002)
        first = snapshot(dev, *group(proc.pid)) if proc.poll() is None else before
        rc = proc.wait()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(before)
    print(first)
    print(snapshot(dev, usage.ru_utime, usage.ru_stime))
    return rc


def main(argv):
    if len(argv) == 3:
        print(snapshot(argv[1], *group(int(argv[2]))))
        return 0
    if len(argv) < 5 or argv[2] != "--run":
        sys.exit(__doc__)
    return run(argv[1], argv[3], argv[4:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
