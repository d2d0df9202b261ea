# A line question, then the answer echoed back; with --hold, a last
# question keeps the answer on a multiplexer's screen.
import sys
name = input("Your name: ")
print("hello " + name)
if "--hold" in sys.argv:
    input("Done? ")
