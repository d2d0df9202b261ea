# apt's style: a scroll region above a status line at the bottom of the
# screen; output scrolls inside the region while the status line is redrawn.
import sys, time
w = sys.stdout.write
rows = 40
w("\n\x1b7\x1b[0;%dr\x1b8\x1b[1A" % (rows - 1))
for i in range(60):
    w("Unpacking package-%02d (1.%d-1) ...\n" % (i, i))
    w("\x1b7\x1b[%d;0f\x1b[42m\x1b[30mProgress: [%3d%%]\x1b[49m\x1b[39m [%-40s]\x1b8" % (rows, i * 100 // 60, "#" * (i * 40 // 60)))
    sys.stdout.flush()
    time.sleep(0.005)
w("\x1b7\x1b[0;%dr\x1b[%d;0f\x1b[J\x1b8" % (rows, rows))
w("Processing triggers for man-db ...\n")
