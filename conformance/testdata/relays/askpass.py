# A sudo-like password prompt: getpass reads /dev/tty with echo off; with
# --hold, a last question keeps the answer on a multiplexer's screen.
import getpass, sys
pw = getpass.getpass("[sudo] password for ada: ")
print("%d characters" % len(pw))
if "--hold" in sys.argv:
    input("Done? ")
