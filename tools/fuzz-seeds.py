#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/Corpus/<target>/) from what the repository already
holds: the annotated AT transcripts (docs/at-logs), the test vectors and fixtures (string literals
of the test suites that feed each parser), examples/nbgwd.toml and the API documents' examples.

Rerun it after adding transcripts or vectors; it replaces the seed-* files and keeps everything
else in the folders (regression inputs are named crash-* or hang-*). Seeds are named by their
content's SHA-1, so a rerun with nothing new changes nothing.

    tools/fuzz-seeds.py
"""

from __future__ import annotations

import hashlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = ROOT / "Fuzz" / "Corpus"
SEPARATOR = b"\xff"
# The split seed every AT and CSV seed starts with (any 8 bytes would do; the fuzzer mutates them).
SPLIT_SEED = bytes(range(1, 9))


def swift_literals(path: pathlib.Path) -> list[bytes]:
    """The string literals of a Swift file: raw `#"…"#`, plain `"…"` and multi-line `\"\"\"`,
    with escapes decoded; literals with interpolation are skipped (their text is not the input)."""
    text = path.read_text(encoding="utf-8")
    found: list[bytes] = []
    for match in re.finditer(r'"""\n(.*?)\n\s*"""', text, re.S):
        body = match.group(1)
        if "\\(" in body:
            continue
        indent = min((len(line) - len(line.lstrip(" ")) for line in body.splitlines() if line.strip()), default=0)
        found.append("\n".join(line[indent:] for line in body.splitlines()).encode() + b"\n")
    text = re.sub(r'"""\n.*?\n\s*"""', "", text, flags=re.S)
    for match in re.finditer(r'#"(.*?)"#', text):
        found.append(match.group(1).encode())
    text = re.sub(r'#".*?"#', "", text)
    for match in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
        raw = match.group(1)
        if "\\(" in raw:
            continue
        found.append(unescape_swift(raw))
    # Test names and expectation messages are prose, not inputs.
    return [literal for literal in found if literal and not (len(literal) > 30 and literal.count(b" ") >= 3 and b"{" not in literal and b"\n" not in literal)]


def unescape_swift(raw: str) -> bytes:
    out = bytearray()
    index = 0
    while index < len(raw):
        char = raw[index]
        if char != "\\":
            out += char.encode()
            index += 1
            continue
        code = raw[index + 1]
        if code == "u":
            end = raw.index("}", index)
            out += chr(int(raw[index + 3 : end], 16)).encode("utf-8", "surrogatepass")
            index = end + 1
            continue
        out += {"n": b"\n", "r": b"\r", "t": b"\t", "0": b"\0", '"': b'"', "\\": b"\\", "'": b"'"}.get(code, code.encode())
        index += 2
    return bytes(out)


def transcript_bytes(text: str) -> bytes:
    """`<<~` notation: `\\r`, `\\n`, `\\xNN` escapes, everything else as written."""
    out = bytearray()
    index = 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text):
            code = text[index + 1]
            if code == "x":
                out.append(int(text[index + 2 : index + 4], 16))
                index += 4
                continue
            out += {"r": b"\r", "n": b"\n", "t": b"\t", "\\": b"\\"}.get(code, b"\\" + code.encode())
            index += 2
            continue
        out += text[index].encode()
        index += 1
    return bytes(out)


def at_scripts() -> list[bytes]:
    """Each fenced `at` block of docs/at-logs as an AT script: boot bytes, then `>COMMAND` and
    the module's answer to it, segments separated by 0xFF (Fuzz/Support/FuzzSupport/ATScript.swift;
    the seeds of fuzz-at-framer, fuzz-at-classifier and fuzz-at-session)."""
    scripts = []
    for path in sorted((ROOT / "docs" / "at-logs").glob("*.md")):
        for block in re.findall(r"```at\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            segments: list[bytes] = [b""]
            for line in block.splitlines():
                line = re.split(r"  -- ", line)[0]
                if line.startswith(">> "):
                    segments.append(b">" + line[3:].encode())
                    segments.append(b"")
                elif line.startswith("<<~ "):
                    segments[-1] += transcript_bytes(line[4:])
                elif line.startswith("<< "):
                    segments[-1] += b"\r\n" + line[3:].encode() + b"\r\n"
            scripts.append(SPLIT_SEED + SEPARATOR.join(segment for segment in segments))
    return scripts


def literals(*paths: str) -> list[bytes]:
    found = []
    for pattern in paths:
        for path in sorted(ROOT.glob(pattern)):
            found += swift_literals(path)
    return found


def write(target: str, seeds: list[bytes]) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("seed-*"):
        old.unlink()
    unique = {hashlib.sha1(seed).hexdigest()[:16]: seed for seed in seeds if seed}
    for name, seed in sorted(unique.items()):
        (folder / f"seed-{name}").write_bytes(seed)
    print(f"{target}: {len(unique)} seeds")


def main() -> None:
    qr_vectors = literals("Tests/PairingTests/*.swift", "Tests/nbgwTests/CLIBindTests.swift")
    qr_vectors += [
        b'{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbowpzs009e7f974a5rk"}}',
        b'{"success":true,"result":{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nb1"}}}',
        b"https://nbgw.local/d/CTAH5CGRC05Y",
        b"https://scan.example/?actionName=device_net_conn_bind_nb&id=nb0123456789",
        b"MT:-24J042C00KA0648G00",
        b"3497-0112-332",
    ]
    write("fuzz-qr", qr_vectors)
    write("fuzz-matter", [seed for seed in qr_vectors if len(seed) < 128])

    boot = [SPLIT_SEED + literal for literal in literals("Tests/ATKitTests/Support/Transcripts.swift")]
    write("fuzz-at", at_scripts() + boot)

    # Command lines: the literals of the suites that read them (the reader, the redaction, the
    # supervised-command policy), each behind the split seed the target takes its cut from.
    lines = literals(
        "Tests/ATKitTests/ATCommandLineTests.swift",
        "Tests/ATKitTests/ATCommandRedactionTests.swift",
        "Tests/ATKitTests/OperatorCommandTests.swift",
        "Tests/GatewayTests/SupervisedCommandPolicyTests.swift",
    )
    write("fuzz-at-command-line", [SPLIT_SEED + line for line in lines if line.strip()[:2].upper() == b"AT"])

    csv = literals("Tests/ProvisioningTests/*.swift", "Tests/nbgwTests/CLIBatchTests.swift")
    csv = [literal for literal in csv if b"," in literal or b"\n" in literal]
    write("fuzz-csv", [SPLIT_SEED + literal for literal in csv] + [SPLIT_SEED + b"\r\n".join(csv)])

    toml = [(ROOT / "examples" / "nbgwd.toml").read_bytes()]
    toml += [literal for literal in literals("Tests/DaemonTests/DaemonConfiguration*.swift") if b"=" in literal]
    write("fuzz-toml", toml)

    json = literals("Tests/IngestTests/IngestJSONTests.swift", "Tests/IngestTests/IngestErrorTests.swift")
    write("fuzz-ingest-json", [literal for literal in json if literal.lstrip()[:1] in (b"{", b"[", b'"', b"n")])

    envelopes = literals("Tests/TuyaCloudTests/*.swift", "Tests/TuyaCloudTests/Support/*.swift")
    write("fuzz-tuya-envelope", [literal for literal in envelopes if literal.lstrip()[:1] in (b"{", b"[")])


if __name__ == "__main__":
    main()
