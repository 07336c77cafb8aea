#!/usr/bin/env python3
"""The functions and read-only data of a running binary whose pages are resident, in address order.

Usage (as root, for /proc/PID/pagemap): tools/hot-symbols.py PID BINARY > ORDER_FILE

Meant for a process started while BINARY was out of the page cache and file read-ahead was off
(tools/order-daemon.sh arranges both): then every resident page of BINARY is one the process
touched, not one the kernel mapped around a fault, and the functions on those pages are the ones
it ran (and their neighbours on the same 4 kB page), likewise the constants it read. The output is
an lld --symbol-ordering-file (lld moves the sections holding those symbols: whole functions with
-function-sections, and data that sits in sections of its own).
"""
import bisect
import importlib.util
import os
import subprocess
import sys

PAGE = 4096


def resident_pages(pid, binary):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("rss_by_section", os.path.join(here, "rss-by-section.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sorted({offset // PAGE for offset in module.resident_offsets(pid, binary)})


def functions(binary):
    """(address, size, name) of every sized function and read-only data symbol, local ones included."""
    output = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in output.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in ("t", "T", "w", "W", "r", "R", "v", "V"):
            address, size = int(fields[0], 16), int(fields[1], 16)
            if size:
                found.append((address, size, fields[3]))
    found.sort()
    return found


def main():
    pid, binary = int(sys.argv[1]), sys.argv[2]
    pages = resident_pages(pid, binary)
    table = functions(binary)
    seen, hot_bytes = set(), 0
    for address, size, name in table:
        first, last = address // PAGE, (address + size - 1) // PAGE
        index = bisect.bisect_left(pages, first)
        if index < len(pages) and pages[index] <= last and name not in seen:
            seen.add(name)
            hot_bytes += size
            print(name)
    total = sum(size for _, size, _ in table)
    print(
        f"hot-symbols: {len(seen)} of {len(table)} symbols, {hot_bytes // 1024} kB of {total // 1024} kB",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
