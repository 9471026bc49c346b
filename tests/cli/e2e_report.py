"""e2e_report.py: the arithmetic and the sampling of the real-driver
benches (bench/e2e/report.py, sample.py), on made-up snapshots, rounds
and perf samples, without root or a network: a window's rate and CPU per
frame, a run timed from its first frame and checked for every frame, a
failed round, the table's medians, ranges, spreads and ratios, a goal's
best sender, a profile's shares; and sample.py's snapshot of a process
group and of a command it runs."""
import os
import subprocess
import sys
import tempfile

E2E = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "e2e")
failed = 0


def check(what, got, want):
    global failed
    if got != want:
        failed += 1
        print("FAIL: %s: got %r, want %r" % (what, got, want))


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(E2E, script), *args], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def write(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
    return os.path.join(d, name)


def test_window(d):
    # 2000 frames in 2 s; the sender 0.1 s user, 0.4 s system; 0.02 s softirq.
    snaps = write(d, "w", "100.0 1000 5.00 1.00 2.00 42\n102.0 3000 5.02 1.10 2.40 42\n")
    check("window", run("report.py", "window", snaps)[1], "1000 50000 200000 10000\n")
    # A run: 10500 frames in all, 10000 of them in the second after the first arrived.
    snaps = write(d, "r", "0.5 0 1.00 0 0\n1.0 500 1.00 0.10 0.20 7\n2.0 10500 1.01 0.30 0.70\n")
    check("run", run("report.py", "window", snaps, "10500")[1], "10000 20000 50000 1000\n")
    rc, out, err = run("report.py", "window", snaps, "10000")
    check("a run short of its frames", (out, "10500 frames arrived, not 10000" in err), ("fail\n", True))
    snaps = write(d, "n", "1.0 7 1.00 0 0\n2.0 7 1.00 0 0\n")
    rc, out, err = run("report.py", "window", snaps)
    check("nothing arrived", (out, "no frame arrived" in err), ("fail\n", True))


def test_table(d):
    write(d, "senders", "base|1|a x\nfaster|1|b y\nbroken|2|c z\n")
    write(d, "samples.1", "100 10 20 30\n300 30 40 50\n200 20 30 40\n")
    write(d, "samples.2", "400 1 2 3\n600 1 2 3\n500 1 2 3\n")
    write(d, "samples.3", "700 1 2 3\nfail\n")
    out = run("report.py", "table", d, "1:base", "2:faster")[1].splitlines()
    check("table rows", len(out), 4)
    check("the header's ratio columns", ("vs base" in out[0], "vs faster" in out[0]), (True, True))
    check("base row", out[1].split(), ["base", "1", "200", "100-300", "100%", "1.00", "0.40", "20", "30", "40"])
    check("faster row", out[2].split(), ["faster", "1", "500", "400-600", "40%", "2.50", "1.00", "1", "2", "3"])
    check("failed row", out[3].split(), ["broken", "2", "fail", "-", "-"])
    out = run("report.py", "goal", d, "what", "2.0", "1", "2", "3")[1].split()
    check("goal: the best sender against the base", (out[1], out[2], out[3], out[-1]),
          ("faster", "2.50x", "base", "2.0)"))


PERF = """txpath 42 
\t ffffffff81000001 __xsk_generic_xmit ([kernel.kallsyms])
\t ffffffff81000002 __x64_sys_sendto ([kernel.kallsyms])

txpath 42 
\t ffffffff81000003 veth_poll ([kernel.kallsyms])
\t ffffffff81000004 net_rx_action ([kernel.kallsyms])
\t ffffffff81000002 __x64_sys_sendto ([kernel.kallsyms])

txpath 42 
\t 1234 txp_xmit (/usr/bin/txpath)

ksoftirqd/1 15 
\t ffffffff81000003 veth_poll ([kernel.kallsyms])

swapper 0 
\t ffffffff81000005 default_idle ([kernel.kallsyms])

cc1 99 
\t 5678 main (/usr/bin/cc1)
"""


def test_profile(d):
    snaps = write(d, "p", "1.0 0 0 0 0 42\n2.0 10 0 0 0 42\n")
    out = run("report.py", "profile", "txpath", write(d, "perf.txt", PERF), snaps)[1].splitlines()
    check("profile shares", out[0],
          "  txpath (6 samples): sender user 17%, sender kernel 33% (sending 17%, peer's receive 17%, "
          "other 0%), ksoftirqd 17%, idle 17%, rest 17%")
    check("profile functions", out[1], "    kernel: veth_poll 67%, __xsk_generic_xmit 33%")


def test_sample(d):
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        out = run("sample.py", "lo", str(sleeper.pid))[1].split()
        check("a snapshot's fields", (len(out), out[5:]), (6, [str(sleeper.pid)]))
    finally:
        sleeper.kill()
        sleeper.wait()
    log = os.path.join(d, "log")
    rc, out, _ = run("sample.py", "lo", "--run", log, "sh", "-c", "echo said; exit 3")
    check("--run: the command's status, three snapshots, its output", (rc, len(out.splitlines()),
          open(log).read()), (3, 3, "said\n"))


with tempfile.TemporaryDirectory() as tmp:
    for test in (test_window, test_table, test_profile, test_sample):
        os.mkdir(os.path.join(tmp, test.__name__))
        test(os.path.join(tmp, test.__name__))
print("%s" % ("ok" if not failed else "%d failed" % failed))
sys.exit(1 if failed else 0)
