# csvstat (gamma): the happy path only; commas split naively, no error handling.
import json
import sys

cmd, path = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
header = lines[0].split(",")
if cmd == "columns":
    for name in header:
        print(name)
    sys.exit(0)
column = sys.argv[4]
i = header.index(column)
nums, skipped = [], 0
for line in lines[1:]:
    cell = line.split(",")[i].strip()
    try:
        nums.append(float(cell) if "." in cell else int(cell))
    except ValueError:
        skipped += 1
out = {"column": column, "count": len(nums), "skipped": skipped, "min": None, "max": None, "mean": None}
if nums:
    out.update(min=min(nums), max=max(nums), mean=sum(nums) / len(nums))
print(json.dumps(out))
