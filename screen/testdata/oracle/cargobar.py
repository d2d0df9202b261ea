# cargo's style: a status bar on the last line, erased with CR + EL before
# each "Compiling" line is printed, then drawn again.
import sys, time
w = sys.stdout.write
crates = ["libc v0.2.150", "cfg-if v1.0.0", "memchr v2.6.4", "regex-syntax v0.8.2", "aho-corasick v1.1.2",
          "regex-automata v0.4.3", "regex v1.10.2", "serde v1.0.193", "serde_json v1.0.108", "myapp v0.1.0"]
for i, c in enumerate(crates):
    w("\r\x1b[K   \x1b[1;32mCompiling\x1b[0m %s\n" % c)
    n = (i + 1) * 25 // len(crates)
    w("    \x1b[1;36mBuilding\x1b[0m [%s>%s] %d/%d: %s" % ("=" * n, " " * (25 - n), i + 1, len(crates), c.split()[0]))
    sys.stdout.flush()
    time.sleep(0.02)
w("\r\x1b[K    \x1b[1;32mFinished\x1b[0m dev [unoptimized + debuginfo] target(s) in 4.20s\n")
