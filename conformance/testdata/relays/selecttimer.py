# A false friend: the terminal in a select beside a pipe, with a timeout.
import os, select, sys
r, w = os.pipe()
sys.stdout.write("Password: ")
sys.stdout.flush()
select.select([sys.stdin, r], [], [], 3)
print("\ntimed out")
