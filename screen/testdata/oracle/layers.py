# BuildKit's style: a block of step lines redrawn from its top each tick
# with CSI n A, every line rewritten and erased to its end.
import sys, time
w = sys.stdout.write
steps = ["[internal] load build definition", "[1/4] FROM docker.io/library/alpine:3.19",
         "[2/4] RUN apk add --no-cache curl", "[3/4] COPY . /app", "[4/4] RUN make -C /app"]
drawn = 0
for tick in range(0, 26):
    if drawn:
        w("\x1b[%dA" % drawn)
    w("\x1b[1m[+] Building %.1fs (%d/%d)\x1b[0m\x1b[K\n" % (tick * 0.1, min(tick // 5, 5), 5))
    for i, s in enumerate(steps):
        if tick // 5 > i:
            w(" => %-60s %4.1fs\x1b[K\n" % (s, 0.5 + i))
        elif tick // 5 == i:
            w(" => %-60s %4.1fs\x1b[K\n" % (s, (tick % 5) * 0.1))
    drawn = 1 + min(tick // 5 + 1, 5)
    sys.stdout.flush()
    time.sleep(0.01)
w("\x1b[32m => exporting to image\x1b[0m\n")
