# Real rich progress bars (Debian's python3-rich): three tasks in one live
# display, as pip and many CLIs draw them.
import time
from rich.progress import Progress
with Progress() as progress:
    tasks = [progress.add_task(name, total=total) for name, total in
             [("Downloading", 40), ("Building", 30), ("Installing", 20)]]
    for _ in range(40):
        for task in tasks:
            progress.advance(task)
        time.sleep(0.02)
print("Successfully installed 3 packages")
