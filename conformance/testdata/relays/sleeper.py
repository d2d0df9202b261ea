# A false friend: a password prompt on screen, then a sleep; nothing reads.
import sys, time
sys.stdout.write("Password: ")
sys.stdout.flush()
time.sleep(3)
print("\nslept")
