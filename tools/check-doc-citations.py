#!/usr/bin/env python3
"""Checks that every citation of a repository document in the code resolves.

A citation is `docs/NAME.md` in a Swift file under Sources/ or tools/, optionally followed by where in
it (other files under docs/, such as docs/cloud-api.yaml, must exist):

    `docs/at-dialects.md` §2, §4.2, §6.7      numbered sections: a heading "## 2. …" / "### 4.2 …"
    `docs/at-dialects.md` §2–3                a range: each of 2 and 3
    docs/cli.md, "The store"                  a titled section: a heading whose text contains it
    docs/operations.md ("Configuration")

The file must exist and each section must be a heading of it. Prints every citation that does not
resolve (file:line, what, why) and exits 1; exits 0 when all resolve. Run from anywhere:
`tools/check-doc-citations.py [--root DIR]`. tools/test.sh runs it.

Why a script and not a Swift test: it reads text files only, needs no build, and runs in about 0.1 s.
"""

import argparse
import pathlib
import re
import sys

CITATION = re.compile(r"(?<![\w./-])docs/([\w/-]+)(\.[A-Za-z]+)?")
SECTION = re.compile(r"\s*(?:,|and|&)?\s*§(\d+(?:\.\d+)?)(?:\s*[–-]\s*(\d+(?:\.\d+)?))?")
TITLE = re.compile(r"""\s*[,(]?\s*\(?"([^"]+)\"""")
NUMBERED_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)?)\.?\s")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
SCANNED = ("Sources", "tools")


def headings(path: pathlib.Path):
    numbers, titles = set(), []
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if match := NUMBERED_HEADING.match(line):
            numbers.add(match.group(1))
        if match := HEADING.match(line):
            titles.append(match.group(1).replace("`", "").lower())
    return numbers, titles


def section_range(first: str, last: str | None):
    if last is None:
        return [first]
    if "." in first or "." in last:
        return [first, last]
    return [str(n) for n in range(int(first), int(last) + 1)]


def check(root: pathlib.Path) -> list[str]:
    problems = []
    cache = {}
    for folder in SCANNED:
        for source in sorted((root / folder).rglob("*.swift")):
            if any(part.startswith(".build") for part in source.relative_to(root).parts):
                continue
            for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1):
                for citation in CITATION.finditer(line):
                    where = f"{source.relative_to(root)}:{number}"
                    name, extension = citation.group(1), citation.group(2)
                    if extension is None:
                        if (root / "docs" / name).is_dir():
                            continue  # a folder under docs/ (docs/at-logs/)
                        problems.append(f"{where}: docs/{name} is not a file; write the document's name, docs/{name}.md")
                        continue
                    if extension != ".md":
                        if not (root / "docs" / (name + extension)).is_file():
                            problems.append(f"{where}: docs/{name}{extension} is not in the repository")
                        continue
                    document = root / "docs" / (name + ".md")
                    cited = f"docs/{name}.md"
                    if not document.is_file():
                        problems.append(f"{where}: {cited} is not in the repository")
                        continue
                    numbers, titles = cache.setdefault(document, headings(document))
                    rest = line[citation.end() :].lstrip("`")
                    position = 0
                    while match := SECTION.match(rest, position):
                        for section in section_range(match.group(1), match.group(2)):
                            if section not in numbers:
                                problems.append(f"{where}: {cited} has no section {section} (no heading \"{section}. …\")")
                        position = match.end()
                    if position == 0 and (match := TITLE.match(rest)):
                        title = match.group(1).lower()
                        if not any(title in heading for heading in titles):
                            problems.append(f"{where}: {cited} has no heading containing \"{match.group(1)}\"")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    root = parser.parse_args().root
    problems = check(root)
    for problem in problems:
        print(f"check-doc-citations: {problem}", file=sys.stderr)
    if problems:
        print(f"check-doc-citations: {len(problems)} citation(s) do not resolve; fix the comment or the document",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
