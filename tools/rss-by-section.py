#!/usr/bin/env python3
"""Which ELF sections of a running binary are resident (the daemon memory analysis in docs/operations.md).

Usage (as root, for /proc/PID/pagemap): tools/rss-by-section.py PID BINARY
Prints the resident kB of BINARY's mappings in process PID, by section (sections from `readelf -SW`).
Why per section: RSS counts file pages mapped around every fault (the kernel's fault-around), so a
binary's resident size says little until it is split into code, read-only data and relocations.
"""
import collections
import re
import struct
import subprocess
import sys

PAGE = 4096


def resident_offsets(pid, binary):
    """Offsets (relative to the load base) of the binary's resident pages."""
    name = binary.split("/")[-1]
    base, ranges = None, []
    for fields in (line.split() for line in open(f"/proc/{pid}/maps")):
        if len(fields) >= 6 and fields[5].endswith(name):
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if base is None:
                base = start - int(fields[2], 16)
            ranges.append((start, end))
    offsets = []
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for start, end in ranges:
            pagemap.seek(start // PAGE * 8)
            data = pagemap.read((end - start) // PAGE * 8)
            for i in range((end - start) // PAGE):
                if struct.unpack_from("<Q", data, i * 8)[0] >> 63 & 1:
                    offsets.append(start + i * PAGE - base)
    return offsets


def sections(binary):
    """(name, address, size) of every section."""
    output = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in output.splitlines():
        match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if match:
            found.append((match.group(1), int(match.group(2), 16), int(match.group(4), 16)))
    return found


def main():
    pid, binary = int(sys.argv[1]), sys.argv[2]
    table = sections(binary)
    resident = collections.Counter()
    for offset in resident_offsets(pid, binary):
        owner = next((n for n, address, size in table if address <= offset + PAGE - 1 and offset < address + size), "?")
        resident[owner] += PAGE // 1024
    sizes = {n: size // 1024 for n, _, size in table}
    print(f"resident kB of {binary} in {pid}: {sum(resident.values())}")
    for name, kb in resident.most_common(20):
        print(f"{kb:8d}  {name}  (section size {sizes.get(name, '?')} kB)")


if __name__ == "__main__":
    main()
