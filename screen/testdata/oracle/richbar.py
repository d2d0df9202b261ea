# A live display the way rich's Progress draws it: hide the cursor, draw the
# block, then for each refresh go back up with CR + CSI A and CSI 2K per line.
import sys, time
w = sys.stdout.write
tasks = [("Downloading wheels", 120), ("Building", 60), ("Installing", 30)]
w("\x1b[?25l")
lines = 0
for step in range(0, 121, 4):
    if lines:
        w("\r" + "\x1b[2K\x1b[1A" * lines + "\x1b[2K")
    out = []
    for name, total in tasks:
        done = min(step, total)
        bar = "━" * int(40 * done / total) + " " * (40 - int(40 * done / total))
        out.append("%-20s %s %3d%% %s" % (name, bar, 100 * done // total, "✓" if done == total else "•"))
    w("\n".join(out))
    lines = len(out) - 1
    sys.stdout.flush()
    time.sleep(0.01)
w("\n\x1b[?25h")
w("Successfully installed 3 packages\n")
