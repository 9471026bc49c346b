#!/usr/bin/env python3
"""report.py - the e2e benches' arithmetic on what sample.py read.

  report.py window SNAPS [N]
      SNAPS holds sample.py's snapshots, two (a window) or three (a run:
      before it, at its first frame, after it): prints "PPS USR SYS
      SOFTIRQ" over the window, or the run from its first frame on: the
      frames per second that arrived at the peer, and per frame the
      sender's user and system CPU and the whole machine's softirq time,
      in nanoseconds.  "fail" (the reason on stderr) when nothing
      arrived, or when N is given and the run did not deliver exactly N.
  report.py table DIR I:NAME...
      a row per sender of DIR/senders (lines LABEL|THREADS|CMD), from its
      rounds in DIR/samples.K (window's lines): the median rate, range and
      spread ((max - min) / median), the ratio of its median to sender
      I's for each I:NAME (the column "vs NAME"), and the medians of its
      CPU per frame.  A sender with a failed round shows "fail".
  report.py goal DIR WHAT GOAL I K...
      one line: the best median of senders K... against sender I's, and
      the issue's GOAL for that ratio.
  report.py profile LABEL SCRIPT SNAPS
      where the CPU went while sender LABEL ran: SCRIPT, `perf script -F
      comm,pid,ip,sym,dso` of a system-wide cpu-clock record with call
      graphs, SNAPS the snapshots naming the sender's processes.  Two
      lines: the samples' shares (the sender in user space and in the
      kernel, the latter split into sending (under a send system call),
      the peer's receive (under net_rx_action: veth1's NAPI, run in the
      sender's context) and the rest; ksoftirqd; the idle task; the rest
      of the machine), then the kernel functions most sampled in the
      sender and ksoftirqd, in % of those kernel samples."""
import collections
import re
import statistics
import sys

HEAD = re.compile(r"(.*?)\s+(\d+)\s*$")
FRAME = re.compile(r"\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$")

ROW = "%-44s %7s %9s %17s %6s"
CPU = " %6s %6s %6s"


def window(path, want=None):
    snaps = [[float(x) for x in line.split()] for line in open(path)]
    a, b = snaps[-2:]
    frames = round(b[1] - a[1])
    run = round(b[1] - snaps[0][1])
    if want is not None and run != int(want):
        print("fail")
        print("%d frames arrived, not %s" % (run, want), file=sys.stderr)
    elif frames <= 0:
        print("fail")
        print("no frame arrived" if run == 0 or len(snaps) == 2 else
              "every frame arrived before the first was seen: too short a run to time", file=sys.stderr)
    else:
        ns = 1e9 / frames
        print(round(frames / (b[0] - a[0])), round((b[3] - a[3]) * ns),
              round((b[4] - a[4]) * ns), round((b[2] - a[2]) * ns))


def senders(d):
    return [line.rstrip("\n").split("|")[:2] for line in open(d + "/senders")]


def rounds(d, k):
    """Sender k's rounds as rows of numbers, or None if one failed."""
    lines = open("%s/samples.%d" % (d, k)).read().splitlines()
    if not lines or "fail" in lines:
        return None
    return [[int(x) for x in line.split()] for line in lines]


def median(d, k):
    r = rounds(d, k)
    return statistics.median(x[0] for x in r) if r else None


def ratio(a, b):
    return "%.2f" % (a / b) if a and b else "-"


def table(d, bases):
    bases = [(int(b.split(":")[0]), b.split(":", 1)[1]) for b in bases]
    vs = ["vs " + name for _, name in bases]
    print(ROW % ("sender", "threads", "pps(med)", "range", "spread") + "".join(" " + v for v in vs) +
          CPU % ("usr", "sys", "softirq") + "  (CPU ns per frame)")
    base = [median(d, i) for i, _ in bases]
    for k, (label, threads) in enumerate(senders(d), 1):
        r = rounds(d, k)
        if not r:
            print(ROW % (label, threads, "fail", "-", "-"))
            continue
        pps = [x[0] for x in r]
        m = statistics.median(pps)
        cpu = [round(statistics.median(x[c] for x in r)) for c in (1, 2, 3)]
        print(ROW % (label, threads, round(m), "%d-%d" % (min(pps), max(pps)),
                     "%.0f%%" % (100 * (max(pps) - min(pps)) / m)) +
              "".join(" %*s" % (len(v), ratio(m, b)) for v, b in zip(vs, base)) + CPU % tuple(cpu))


def goal(d, what, want, base, ks):
    names = senders(d)
    best = max(ks, key=lambda k: median(d, k) or 0)
    m, b = median(d, best), median(d, base)
    print("  %-32s %-44s %5sx %-28s (goal >= %s)" %
          (what, names[best - 1][0], ratio(m, b), names[base - 1][0], want))


def samples(script):
    """(comm, pid, frames) of each sample, frames (symbol, dso) leaf first."""
    comm = pid = None
    frames = []
    for line in open(script):
        head = HEAD.match(line) if not line[:1].isspace() else None
        frame = FRAME.match(line) if line[:1].isspace() else None
        if head:
            comm, pid, frames = head.group(1), int(head.group(2)), []
        elif frame and comm is not None:
            frames.append(frame.groups())
        elif not line.strip() and comm is not None:
            if frames:
                yield comm, pid, frames
            comm = None
    if comm is not None and frames:
        yield comm, pid, frames


def kernel_part(frames):
    syms = [sym for sym, _ in frames]
    if "net_rx_action" in syms:
        return "peer's receive"
    if any("sys_send" in sym for sym in syms):
        return "sending"
    return "other"


def profile(label, script, snaps):
    pids = {int(p) for line in open(snaps) for p in line.split()[5:]}
    shares, parts, syms = collections.Counter(), collections.Counter(), collections.Counter()
    for comm, pid, frames in samples(script):
        kernel = frames[0][1] == "[kernel.kallsyms]"
        if pid in pids:
            who = "sender kernel" if kernel else "sender user"
        elif pid == 0:
            who = "idle task"
        elif comm.startswith("ksoftirqd"):
            who = "ksoftirqd"
        else:
            who = "the rest"
        shares[who] += 1
        if who == "sender kernel":
            parts[kernel_part(frames)] += 1
        if who in ("sender kernel", "ksoftirqd"):
            syms[frames[0][0]] += 1
    total = sum(shares.values())
    if not total:
        print("  %s: no samples" % label)
        return

    def pct(n):
        return "%.0f%%" % (100 * n / total)
    split = ", ".join("%s %s" % (p, pct(parts[p])) for p in ("sending", "peer's receive", "other"))
    print("  %s (%d samples): sender user %s, sender kernel %s (%s), ksoftirqd %s, idle %s, rest %s" %
          (label, total, pct(shares["sender user"]), pct(shares["sender kernel"]), split,
           pct(shares["ksoftirqd"]), pct(shares["idle task"]), pct(shares["the rest"])))
    kernel = sum(syms.values()) or 1
    print("    kernel: " + ", ".join("%s %.0f%%" % (f, 100 * n / kernel) for f, n in syms.most_common(8)))


def main(argv):
    if len(argv) in (3, 4) and argv[1] == "window":
        window(*argv[2:])
    elif len(argv) >= 4 and argv[1] == "table":
        table(argv[2], argv[3:])
    elif len(argv) >= 7 and argv[1] == "goal":
        goal(argv[2], argv[3], argv[4], int(argv[5]), [int(k) for k in argv[6:]])
    elif len(argv) == 5 and argv[1] == "profile":
        profile(*argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
