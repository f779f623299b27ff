"""Every citation of a Markdown document in the repository points at a file and a section that
exist in the repository, so a reader of a clone can follow each one.

The conventions checked (they are also the rules for writing citations):

* A *document citation* is a path ending in ``.md``, written from the repository root or
  relative to the citing file's folder (the ``README.md`` next to it), e.g. ``docs/isa.md``.
  Web addresses are not citations, nor is a Python string literal holding just a file name
  (code that opens the file).
* A *section reference* is the section sign followed by a dotted number: ``§4``, ``§4.4``,
  ``§5.4 (b)``, ranges as ``§3.3–§3.5`` (both ends are checked).  It refers to the document cited
  last before it: in a Markdown file, the last one named in the same paragraph (or table), else
  the Markdown file itself; in any other file, the last one named earlier in the same file, so a
  docstring may name a document once and go on with bare section numbers.
* A section *exists* when a heading (``#`` to ``######``) of the cited document starts with its
  number: ``## 4. The runtime``, ``### 4.4 Micro-kernel recording``, ``#### 5.4.1 ...``;
  ``docs/pipeline.md`` numbers its sections by stage: ``## Stage 6 — after ...``.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: File kinds whose text is scanned for citations.
SCANNED_SUFFIXES = (".py", ".md", ".mlir", ".toml", ".cfg")
#: Folders never scanned: the virtual environment, version control, tool caches and the
#: files lit writes for its runs (``Output/`` next to each test folder).
SKIPPED_DIRS = {
    ".venv",
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    "Output",
}

SECTION_SIGN = "\u00a7"
_URL = re.compile(r"[a-z]+://\S+")
MD = ".md"
_DOC = re.compile(r"(?<![\w/.-])((?:\.\.?/)*(?:[\w-]+/)*[\w.-]*\w\.md)\b")
_PY_FILE_NAME = re.compile(r"""(["'])[\w./-]+\.md\1""")
_SECTION = re.compile(SECTION_SIGN + r"\s?(\d+(?:\.\d+)*)")
_HEADING = re.compile(r"^#{1,6}\s+(?:Stage\s+)?(\d+(?:\.\d+)*)\.?(?:\s|$)")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Citation:
    """One document citation or section reference found in a scanned file."""

    source: Path  # relative to the repository root
    line: int
    document: Path | None  # the cited document (None: its name does not resolve)
    name: str  # the document as written
    section: str | None  # the section number, for a section reference


def scanned_files(root: Path) -> Iterator[Path]:
    """Every file of the repository with a scanned suffix, outside the skipped folders."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            if name.endswith(SCANNED_SUFFIXES):
                yield Path(folder) / name


def resolve(name: str, source: Path, root: Path) -> Path | None:
    """The repository file a document name denotes: from the root, else from the citing folder."""
    for base in (root, source.parent):
        candidate = (base / name).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            return candidate
    return None


def citations(source: Path, root: Path) -> Iterator[Citation]:
    """Document citations and section references of one file, in text order."""
    text = _URL.sub(lambda m: " " * len(m.group()), source.read_text(encoding="utf-8"))
    if source.suffix == ".py":
        text = _PY_FILE_NAME.sub(lambda m: " " * len(m.group()), text)
    markdown = source.suffix == MD
    where = source.relative_to(root)
    events = [(m.start(), "doc", m.group(1)) for m in _DOC.finditer(text)]
    events += [(m.start(), "sec", m.group(1)) for m in _SECTION.finditer(text)]
    breaks = [m.start() for m in _PARAGRAPH_BREAK.finditer(text)] if markdown else []
    current: tuple[str, Path | None] | None = None
    current_at = -1
    for pos, kind, value in sorted(events):
        line = text.count("\n", 0, pos) + 1
        if kind == "doc":
            current, current_at = (value, resolve(value, source, root)), pos
            yield Citation(where, line, current[1], value, None)
            continue
        if markdown and (current is None or any(current_at < b < pos for b in breaks)):
            # A bare section number in a Markdown file refers to the file itself.
            yield Citation(where, line, source.resolve(), source.name, value)
        elif current is None:
            yield Citation(where, line, None, "(no document cited before it)", value)
        else:
            yield Citation(where, line, current[1], current[0], value)


def section_numbers(document: Path) -> set[str]:
    """The section numbers of a Markdown document's headings (outside code blocks)."""
    numbers: set[str] = set()
    fenced = False
    for line in document.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            numbers.add(m.group(1))
    return numbers


def broken_citations(root: Path) -> list[str]:
    """One message per citation whose document or section does not exist."""
    root = root.resolve()
    problems: list[str] = []
    sections: dict[Path, set[str]] = {}
    for source in scanned_files(root):
        for c in citations(source, root):
            at = f"{c.source}:{c.line}"
            if c.document is None:
                what = f" {SECTION_SIGN}{c.section}" if c.section else ""
                problems.append(f"{at}: {c.name}{what}: no such file in the repository")
                continue
            if c.section is None:
                continue
            if c.document not in sections:
                sections[c.document] = section_numbers(c.document)
            if c.section not in sections[c.document]:
                problems.append(
                    f"{at}: {c.document.relative_to(root)} has no section "
                    f"{SECTION_SIGN}{c.section} (no heading starting with {c.section})"
                )
    return problems


@pytest.fixture(scope="module")
def repository() -> Path:
    if not (ROOT / "docs").is_dir() or not (ROOT / "pyproject.toml").is_file():
        pytest.skip("the documentation is not part of this installation")
    return ROOT


def test_every_citation_resolves(repository: Path) -> None:
    problems = broken_citations(repository)
    assert not problems, f"{len(problems)} broken citation(s):\n" + "\n".join(problems)


def test_the_specification_ships(repository: Path) -> None:
    """The documents the code cites most exist, with the sections of the hardware reference."""
    docs = repository / "docs"
    isa = section_numbers(docs / f"isa{MD}")
    for number in ("1.2", "1.6", "2.1", "2.3", "2.7", "3.2", "3.7", "4.4", "4.6", "4.7"):
        assert number in isa
    assert (docs / f"timing-model{MD}").is_file()
    assert (docs / f"performance{MD}").is_file()


def test_scanner_finds_broken_citations(tmp_path: Path) -> None:
    """The checker is not vacuous: a missing file and a missing section are both reported."""
    (tmp_path / "docs").mkdir()
    # The names are assembled so that this file's own text cites nothing.
    a, b, sec = f"docs/a{MD}", f"docs/b{MD}", SECTION_SIGN
    (tmp_path / a).write_text(f"# A\n\n## 1. One\n\n### 1.2 Two\n\nSee {sec}1.2.\n")
    (tmp_path / "m.py").write_text(
        f'"""Cites {a} {sec}1.2 and {sec}1.3, and {b}."""\nOPEN = "{b}"\n'
    )
    found = [(c.name, c.section) for c in citations(tmp_path / "m.py", tmp_path)]
    assert found == [(a, None), (a, "1.2"), (a, "1.3"), (b, None)]
    assert section_numbers(tmp_path / a) == {"1", "1.2"}
    problems = broken_citations(tmp_path)
    assert problems == [
        f"m.py:1: {a} has no section {sec}1.3 (no heading starting with 1.3)",
        f"m.py:1: {b}: no such file in the repository",
    ]


def test_ci_runs_the_readme_test_command(repository: Path) -> None:
    """``.ci/run`` ends with exactly the Quick start's test command (the ``sh`` block that runs
    ``python -m pytest`` with no marker), and that command leaves out the slow tests."""
    blocks = re.findall(r"```sh\n(.*?)\n```", (repository / "README.md").read_text(), re.S)
    (command,) = [b for b in blocks if b.endswith("python -m pytest")]
    ci = (repository / ".ci" / "run").read_text().splitlines()
    steps = [line for line in ci if line.strip() and not line.lstrip().startswith("#")]
    assert steps[-1] == command
    assert "python -m pytest -m slow" in blocks
    pytest_options = tomllib.loads((repository / "pyproject.toml").read_text())["tool"]["pytest"]
    assert "-m 'not slow'" in pytest_options["ini_options"]["addopts"]
    assert any(m.startswith("slow:") for m in pytest_options["ini_options"]["markers"])
