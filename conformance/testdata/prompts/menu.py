import sys, tty, termios
items = ["React", "Vue", "Svelte", "Solid"]
sel = 1
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
out = sys.stdout
def draw(first=False):
    if not first:
        out.write("\x1b[%dA" % (len(items)+1))
    out.write("\r\x1b[K\x1b[32m?\x1b[0m \x1b[1mWhich framework?\x1b[0m \x1b[2m(Use arrow keys)\x1b[0m\r\n")
    for i, it in enumerate(items):
        if i == sel:
            out.write("\x1b[K\x1b[36m\u276f \x1b[7m%s\x1b[0m\r\n" % it)
        else:
            out.write("\x1b[K  %s\r\n" % it)
    out.write("\x1b[%dA\x1b[%dC" % (len(items)+1, 40))
    out.flush()
out.write("\x1b[?25l")
draw(True)
try:
    while True:
        c = sys.stdin.read(1)
        if c == "\r":
            break
        if c == "\x1b":
            sys.stdin.read(1); k = sys.stdin.read(1)
            if k == "A": sel = max(0, sel-1)
            if k == "B": sel = min(len(items)-1, sel+1)
            draw()
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
    out.write("\x1b[%dB\r\x1b[?25h" % (len(items)+1))
    print("picked " + items[sel])
