# Three progress bars redrawn in place the way tqdm does with position=:
# move down to the bar's row, redraw it with CR, move back up.
import sys, time
w = sys.stdout.write
names = ["download", "extract", "install"]
totals = [40, 25, 10]
w("starting\n")
for i in range(3):
    w("\n")
w("\x1b[3A")
for step in range(41):
    for k, name in enumerate(names):
        n = min(step, totals[k])
        frac = n / totals[k]
        bar = "#" * int(frac * 30)
        if k:
            w("\n" * k)
        w("\r%-8s: %3d%%|%-30s| %d/%d\x1b[K" % (name, frac * 100, bar, n, totals[k]))
        if k:
            w("\x1b[%dA" % k)
    sys.stdout.flush()
    time.sleep(0.01)
w("\n\n\n")
w("all done\n")
