#!/usr/bin/env bash
# Release build of the gateway's programs, as installed on a gateway (docs/operations.md, Install):
#
#   --static-swift-stdlib   the Swift runtime and Foundation linked in: the gateway needs no Swift
#                           runtime, and only the parts used are loaded (no shared-library relocation
#                           of all of Foundation at every start);
#   -function-sections      every function in a section of its own (Swift and C), so that the linker
#                           can place the daemon's start-up and steady-state code together, in the
#                           order of packaging/nbgwd.order (Package.swift passes it to lld for nbgwd);
#   a static libstdc++      the C++ runtime (which the Swift runtime needs) linked in too, so only the
#                           functions used are loaded, not all of libstdc++.so (1.4 MB resident). The
#                           toolchain's link line asks for `-lstdc++` itself, so the linker is pointed
#                           at a directory where that name finds only the static archive (the GCC
#                           installation's, which the Swift toolchain's libstdc++-dev dependency
#                           brings); without one, the shared library is used as before.
#
# Why it matters: the kernel maps a program's file pages 64 kB around every page fault, so code
# scattered over a 30 MB text segment is resident many times over; packed, it is not
# (docs/operations.md, "Memory"). The flags change nothing else; a plain `swift build -c release`
# also works, with a larger RSS.
#
# Usage: tools/build-release.sh [PRODUCT...]   (default: nbgwd nbgw). SCRATCH_PATH=DIR builds there.
# Prints the directory holding the binaries on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
products=("$@")
((${#products[@]})) || products=(nbgwd nbgw)
flags=(-c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections)
[[ -n "${SCRATCH_PATH:-}" ]] && flags+=(--scratch-path "$SCRATCH_PATH")
clang="$(dirname "$(command -v swift)")/clang"
archive="$("$clang" -print-file-name=libstdc++.a 2>/dev/null || true)"
if [[ "$archive" == /* && -f "$archive" ]]; then
    static_cxx="${SCRATCH_PATH:-.build}/static-libstdc++"
    mkdir -p "$static_cxx"
    ln -sf "$archive" "$static_cxx/libstdc++.a"
    flags+=(-Xswiftc -L"$(cd "$static_cxx" && pwd)")
fi
for product in "${products[@]}"; do
    swift build "${flags[@]}" --product "$product" >&2
done
swift build "${flags[@]}" --show-bin-path
