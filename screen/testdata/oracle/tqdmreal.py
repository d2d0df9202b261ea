# Two real tqdm bars (Debian's python3-tqdm): an outer and a nested inner
# bar, which tqdm redraws by moving the cursor between their rows.
import time
from tqdm import tqdm
for epoch in tqdm(range(3), desc="epochs", position=0, ncols=100):
    for step in tqdm(range(20), desc="batches", position=1, leave=False, ncols=100):
        time.sleep(0.01)
print("training done")
