# A false friend: a prompt-shaped line, then three seconds of computing.
import sys, time
sys.stdout.write("Continue? [y/N] ")
sys.stdout.flush()
end = time.time() + 3
n = 0
while time.time() < end:
    n += 1
print("\ncomputed")
