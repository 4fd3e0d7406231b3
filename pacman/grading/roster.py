"""A class's submissions: the folder an instructor downloaded, read into one submission per student.

`read_roster` looks at the whole folder, decides which of `SHAPES` it has, and
returns a `Roster`: the submissions, sorted by their student key, and every entry
it did not take, each with the reason. Nothing is guessed: an entry that does not
fit the folder's shape is skipped by name, whatever it looks like. The shapes, as
the services write them:

``files``
    One ``.py`` per student directly in the folder; the file name less ``.py`` is
    the student.
``folders``
    One folder per student, named for the student, holding the assignment's
    submission file (``multi_agents.py``) directly. Only that file name counts.
``canvas``
    Canvas's "Download Submissions" zip, unzipped: flat files named
    ``NAME_USERID_SUBMISSIONID_ORIGINAL``, where NAME is the student's name run
    together in lower case, last name first (``smithjane``), USERID and SUBMISSIONID are
    numbers and ORIGINAL is the name the student uploaded. A submission after the
    due date reads ``NAME_late_USERID_SUBMISSIONID_ORIGINAL``. A file uploaded again
    under the same name is renamed ``ORIGINAL`` with ``-1``, ``-2``, ... before its
    extension (``multi_agents-2.py``); the highest number is the newest. Key: the
    user id; name: NAME.
``moodle``
    Moodle's "Download all submissions": one folder per participant and
    submission plugin, ``Full Name_ID_assignsubmission_file_`` holding the files
    uploaded (``..._assignsubmission_onlinetext_`` for typed text), or, with
    "download submissions in folders" off, flat files
    ``Full Name_ID_assignsubmission_file_ORIGINAL``. ID is the participant number
    in the assignment. Key: the ID; name: Full Name.
``gradescope``
    Gradescope's "Export Submissions": folders ``submission_N/`` holding each
    submission's files, and ``submission_metadata.yml`` beside them, written by
    Ruby, so its keys are symbols, ``:submitters:`` (each ``:name:``, ``:sid:``,
    ``:email:``), ``:created_at:``, ``:score:``...; the top-level keys are the folder
    names. A group shares one submission. Key: the folder name (always there and
    unique, where a submitter's sid may be missing and a group has several); the
    first submitter's name, sid and email are the submission's, all of them are in
    `Submission.submitters`.

Otter-Grader read Canvas and Gradescope exports in its versions 1 and 2 (its
``otter/grade/metadata.py``; the 3.0.0 changelog: "Removed metadata files for
Otter Grade"). It took a Canvas file's student as everything before the first
underscore, giving ``late_`` and ``-N`` no meaning, and it read
``submission_metadata.yml`` with ``yaml.safe_load`` as a mapping of folder name to
``{":submitters": [{":name": ...}, ...]}``, one record per submitter keyed by name.
It had no Moodle reader.

How the shape is decided: ``submission_metadata.yml`` makes a Gradescope export.
Otherwise each entry counts for the shape whose names it has (a Canvas file name,
a Moodle name, a folder holding the submission file, a ``.py`` file) and the
shape with most entries wins, ties going to the earlier in `SHAPES`. Hidden
entries, ``__MACOSX``, ``__pycache__``, symbolic links and special files are always
skipped.

Student keys are safe as file names (feedback files are named by them, see
`safe_name`) and unique ignoring case, as on macOS and Windows: two submissions
with one key are an error that names both.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, NamedTuple


from pacman.errors import PacmanError

__all__ = ["SHAPES", "GRADESCOPE_METADATA", "RosterError", "Submitter", "Submission", "Roster", "read_roster",
           "safe_name"]

#: The folder shapes `read_roster` knows; on a tie between shapes the earlier wins.
SHAPES: tuple[str, ...] = ("gradescope", "canvas", "moodle", "folders", "files")

#: The file beside the submission folders of a Gradescope export.
GRADESCOPE_METADATA = "submission_metadata.yml"

#: Longest student key `safe_name` makes, in characters: room for a suffix within the usual 255-byte limit.
MAX_KEY_LENGTH = 100

_CANVAS = re.compile(r"(?P<name>[^_]+)_(?P<late>late_)?(?P<user>\d+)_(?P<submission>\d+)_(?P<original>.+)", re.S)
_MOODLE = re.compile(r"(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<original>.*)", re.S)
_WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                              *(f"LPT{i}" for i in range(1, 10))})
#: How many of a folder's .py files a "no multi_agents.py in it" reason names.
_NAMED_FILES = 3


class RosterError(PacmanError):
    """A folder of submissions that cannot be read as a class; the message names the folder or the entries."""


@dataclass(frozen=True)
class Submitter:
    """One student of a Gradescope submission, as ``submission_metadata.yml`` lists them."""

    name: str | None = None
    sid: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class Submission:
    """One student's (or one group's) submission in a class."""

    student: str
    """The key of the submission in its class: unique ignoring case, safe as a file name."""
    path: Path
    """The file to grade."""
    name: str | None = None
    """The student's name as the folder gives it (Unicode NFC), if it gives one."""
    sid: str | None = None
    """The student id, where the export has one (Gradescope)."""
    email: str | None = None
    """The e-mail address, where the export has one (Gradescope)."""
    late: bool = False
    """Marked late by the service (Canvas)."""
    submitters: tuple[Submitter, ...] = ()
    """Everyone credited with a Gradescope submission, a group's members in the export's order; empty elsewhere."""


@dataclass(frozen=True)
class Roster:
    """What `read_roster` found in a folder."""

    shape: str
    """One of `SHAPES`."""
    submissions: tuple[Submission, ...]
    """Sorted by student key; never empty."""
    skipped: tuple[tuple[str, str], ...]
    """Every entry of the folder not taken, as (its name in the folder, why), sorted by name."""


class _Entry(NamedTuple):
    name: str
    path: Path
    kind: str
    """"file", "dir", "link" (a symbolic link, not followed) or "other" (a FIFO, a socket, a device)."""


#: What a reader returns: each submission with the name of its entry in the folder, and the entries it skipped.
_Found = list[tuple[Submission, str]]
_Skipped = list[tuple[str, str]]


def safe_name(text: str) -> str:
    """`text` made a file name safe on Linux, macOS and Windows, readable and stable; the student keys are such names.

    Letters and digits of any script, ``-``, ``_`` and ``.`` are kept (after Unicode
    NFC), every run of anything else becomes one ``_``; leading and trailing ``.``,
    ``-`` and ``_`` go (no hidden files, no option-like names), as does all past
    `MAX_KEY_LENGTH` characters; a Windows device name (``con``, ``nul``, ``com1``)
    gets a ``_``. Different texts can give one name: `read_roster` reports that as
    a duplicate. Raises `RosterError` when nothing usable is left.

    >>> safe_name("José Müller")
    'José_Müller'
    >>> safe_name("../etc/passwd")
    'etc_passwd'
    >>> safe_name("nul")
    'nul_'
    """
    kept = "".join(c if c.isalnum() or c in "-_." else "_" for c in unicodedata.normalize("NFC", text))
    kept = re.sub(r"_{2,}", "_", kept).strip("._-")[:MAX_KEY_LENGTH].rstrip("._-")
    if not kept:
        raise RosterError(f"no letter or digit to make a file name of in {text!r}")
    head, dot, rest = kept.partition(".")
    if head.upper() in _WINDOWS_DEVICES:
        kept = f"{head}_{dot}{rest}"
    return kept


def read_roster(folder: Path | str, submission_file: str) -> Roster:
    """The submissions in `folder`, one per student, for an assignment whose students submit `submission_file`.

    The folder's shape is decided from all its entries (module docstring); an
    entry that does not fit it is skipped with the reason. Raises `RosterError` if
    `folder` is missing or not a folder, holds no submission, or holds two for one
    student key.

    >>> roster = read_roster("downloads/hw2", "multi_agents.py")    # doctest: +SKIP
    >>> roster.shape, [s.student for s in roster.submissions]        # doctest: +SKIP
    ('canvas', ['104321', '104377'])
    """
    folder = Path(folder)
    _check_submission_file(submission_file)
    entries = _entries(folder)
    if any(e.name == GRADESCOPE_METADATA and e.kind == "file" for e in entries):
        shape = "gradescope"
        found, skipped = _read_gradescope(folder, entries, submission_file)
    else:
        skipped = [(e.name, reason) for e in entries if (reason := _always_skipped(e)) is not None]
        usable = [e for e in entries if _always_skipped(e) is None]
        shape = _detect(usable, submission_file)
        found, more = _READERS[shape](usable, submission_file)
        skipped += more
    if not found:
        raise RosterError(f"no submission of {submission_file} in {str(folder)!r}{_summary(skipped)}")
    _check_unique(folder, found)
    return Roster(shape, tuple(sorted((s for s, _ in found), key=lambda s: s.student)), tuple(sorted(skipped)))


# --- the folder -------------------------------------------------------------------------------------------------


def _check_submission_file(submission_file: str) -> None:
    if (not submission_file.endswith(".py") or submission_file.startswith(".") or "/" in submission_file
            or "\\" in submission_file or len(submission_file) <= len(".py")):
        raise RosterError(f"expected a submission file name like multi_agents.py, got {submission_file!r}")


def _entries(folder: Path) -> list[_Entry]:
    if not folder.exists():
        raise RosterError(f"no folder {str(folder)!r}")
    if not folder.is_dir():
        raise RosterError(f"{str(folder)!r} is a file, not a folder of submissions")
    try:
        with os.scandir(folder) as scan:
            entries = [_Entry(e.name, folder / e.name, _kind(e)) for e in scan]
    except OSError as exc:
        raise RosterError(f"cannot list {str(folder)!r}: {exc.strerror or exc}") from None
    return sorted(entries)


def _kind(entry: os.DirEntry) -> str:
    if entry.is_symlink():
        return "link"
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    if entry.is_file(follow_symlinks=False):
        return "file"
    return "other"


def _is_regular_file(path: Path) -> bool:
    """Whether `path` is a regular file itself: a symbolic link (to anywhere) does not count."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _always_skipped(entry: _Entry) -> str | None:
    """Why `entry` is skipped in a folder of any shape, or None."""
    if entry.name.startswith("."):
        return "hidden"
    if entry.name == "__MACOSX":
        return "macOS archive metadata"
    if entry.name == "__pycache__":
        return "Python's bytecode cache"
    if entry.kind == "link":
        return "a symbolic link (not followed)"
    if entry.kind == "other":
        return "not a regular file or folder"
    return None


def _claim(entry: _Entry, submission_file: str) -> str | None:
    """The shape whose names `entry` has, if any."""
    if entry.kind == "file" and _CANVAS.fullmatch(entry.name):
        return "canvas"
    moodle = _MOODLE.fullmatch(entry.name)
    if moodle and (entry.kind == "dir") == (moodle["original"] == ""):
        return "moodle"
    if entry.kind == "dir" and _is_regular_file(entry.path / submission_file):
        return "folders"
    if entry.kind == "file" and entry.name.endswith(".py"):
        return "files"
    return None


def _detect(entries: list[_Entry], submission_file: str) -> str:
    """The shape claimed by most of `entries` (none of them always skipped); "files" if none claims any.

    With no claim the "files" reader skips every entry, each with its reason, for the error to quote.
    """
    votes = Counter(shape for e in entries if (shape := _claim(e, submission_file)) is not None)
    if not votes:
        return "files"
    return max(votes, key=lambda shape: (votes[shape], -SHAPES.index(shape)))


def _summary(skipped: list[tuple[str, str]]) -> str:
    if not skipped:
        return " (it is empty)"
    shown = "; ".join(f"{name}: {reason}" for name, reason in sorted(skipped)[:3])
    more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    return f" (skipped {shown}{more})"


def _check_unique(folder: Path, found: list[tuple[Submission, str]]) -> None:
    seen: dict[str, tuple[Submission, str]] = {}
    for submission, entry_name in found:
        key = submission.student.casefold()
        if key in seen:
            other, other_entry = seen[key]
            raise RosterError(f"two submissions for student {submission.student!r} in {str(folder)!r}: "
                              f"{other_entry!r} and {entry_name!r}")
        seen[key] = (submission, entry_name)


def _missing(folder: Path, submission_file: str) -> str:
    """The reason for skipping a student's folder without `submission_file`: which .py files it has instead."""
    try:
        others = sorted(p.name for p in folder.iterdir() if p.suffix == ".py" and _is_regular_file(p))
    except OSError:
        others = []
    if not others:
        return f"no {submission_file} in it"
    listed = ", ".join(others[:_NAMED_FILES]) + (", ..." if len(others) > _NAMED_FILES else "")
    return f"no {submission_file} in it (has {listed})"


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# --- one reader per shape ---------------------------------------------------------------------------------------


def _read_files(entries: list[_Entry], submission_file: str) -> tuple[_Found, _Skipped]:
    found: _Found = []
    skipped: _Skipped = []
    for entry in entries:
        if entry.kind == "dir":
            skipped.append((entry.name, "a folder; the submissions here are .py files, one per student"))
        elif not entry.name.endswith(".py"):
            skipped.append((entry.name, "not a .py file"))
        else:
            stem = entry.name[:-len(".py")]
            try:
                student = safe_name(stem)
            except RosterError:
                skipped.append((entry.name, "no letter or digit in its name to make a student key of"))
                continue
            found.append((Submission(student, entry.path, name=_nfc(stem)), entry.name))
    return found, skipped


def _read_folders(entries: list[_Entry], submission_file: str) -> tuple[_Found, _Skipped]:
    found: _Found = []
    skipped: _Skipped = []
    for entry in entries:
        if entry.kind != "dir":
            skipped.append((entry.name, f"a file; the submissions here are folders holding {submission_file}"))
        elif not _is_regular_file(entry.path / submission_file):
            skipped.append((entry.name, _missing(entry.path, submission_file)))
        else:
            try:
                student = safe_name(entry.name)
            except RosterError:
                skipped.append((entry.name, "no letter or digit in its name to make a student key of"))
                continue
            found.append((Submission(student, entry.path / submission_file, name=_nfc(entry.name)), entry.name))
    return found, skipped


def _read_canvas(entries: list[_Entry], submission_file: str) -> tuple[_Found, _Skipped]:
    stem, suffix = submission_file[:-len(".py")], ".py"
    resubmitted = re.compile(re.escape(stem) + r"(?:-(?P<n>\d+))?" + re.escape(suffix))
    skipped: _Skipped = []
    # Per user id: (resubmission number, entry, match) of each candidate file.
    candidates: dict[str, list[tuple[int, _Entry, re.Match]]] = {}
    for entry in entries:
        match = _CANVAS.fullmatch(entry.name) if entry.kind == "file" else None
        if entry.kind == "dir":
            skipped.append((entry.name, "a folder; a Canvas download holds files only"))
        elif match is None:
            skipped.append((entry.name, "not a Canvas submission name (NAME_USERID_SUBMISSIONID_FILE)"))
        elif (original := resubmitted.fullmatch(match["original"])) is None:
            skipped.append((entry.name, f"Canvas file of user {match['user']}, but not {submission_file}"))
        else:
            number = int(original["n"]) if original["n"] is not None else 0
            candidates.setdefault(match["user"], []).append((number, entry, match))
    found: _Found = []
    for user, files in candidates.items():
        newest = max(number for number, _, _ in files)
        winners = [(entry, match) for number, entry, match in files if number == newest]
        for number, entry, _ in files:
            if number != newest:
                skipped.append((entry.name, f"superseded by {winners[0][0].name}"))
        # Two files with one number for one user: kept both, for the duplicate check to name them.
        for entry, match in winners:
            found.append((Submission(user, entry.path, name=_nfc(match["name"]), late=match["late"] is not None),
                          entry.name))
    return found, skipped


def _read_moodle(entries: list[_Entry], submission_file: str) -> tuple[_Found, _Skipped]:
    found: _Found = []
    skipped: _Skipped = []
    for entry in entries:
        match = _MOODLE.fullmatch(entry.name)
        if match is None or (entry.kind == "dir") != (match["original"] == ""):
            skipped.append((entry.name, "not a Moodle submission name (Full Name_ID_assignsubmission_file_)"))
        elif match["plugin"] != "file":
            skipped.append((entry.name, f"a Moodle {match['plugin']} submission, not a file submission"))
        elif entry.kind == "dir" and not _is_regular_file(entry.path / submission_file):
            skipped.append((entry.name, _missing(entry.path, submission_file)))
        elif entry.kind == "file" and match["original"] != submission_file:
            skipped.append((entry.name, f"Moodle file of participant {match['id']}, but not {submission_file}"))
        else:
            path = entry.path / submission_file if entry.kind == "dir" else entry.path
            found.append((Submission(match["id"], path, name=_nfc(match["name"])), entry.name))
    return found, skipped


# --- Gradescope -------------------------------------------------------------------------------------------------


def _metadata_loader() -> Any:
    """PyYAML's safe loader, reading a value under an unknown local tag (``!ruby/object:...``) as the plain value.

    PyYAML is imported here, for a Gradescope export only: the other shapes need nothing beyond Python.
    """
    try:
        import yaml
    except ImportError:
        raise RosterError(f"reading {GRADESCOPE_METADATA} needs PyYAML: pip install \"pacman-ai[class]\"") from None

    class MetadataLoader(yaml.SafeLoader):
        pass

    def untagged(loader: Any, suffix: str, node: Any) -> Any:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    MetadataLoader.add_multi_constructor("!", untagged)
    return yaml, MetadataLoader


def _load_metadata(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RosterError(f"cannot read {str(path)!r}: {exc}") from None
    yaml, loader = _metadata_loader()
    try:
        metadata = yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        raise RosterError(f"{str(path)!r} is not readable YAML: {exc}") from None
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise RosterError(f"{str(path)!r} should map each submission folder to its submitters, "
                          f"found a {type(metadata).__name__}")
    return metadata


def _symbol_keys(raw: Any) -> dict[str, Any]:
    """A Ruby-written mapping with its keys as plain strings: ``:name`` and ``name`` both give ``name``."""
    if not isinstance(raw, dict):
        return {}
    return {str(key).removeprefix(":"): value for key, value in raw.items()}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = _nfc(str(value).strip())
    return text or None


def _submitters(record: Any) -> tuple[Submitter, ...]:
    listed = _symbol_keys(record).get("submitters")
    if not isinstance(listed, list):
        return ()
    people = (_symbol_keys(person) for person in listed if isinstance(person, dict))
    return tuple(Submitter(_text(p.get("name")), _text(p.get("sid")), _text(p.get("email"))) for p in people)


def _read_gradescope(folder: Path, entries: Iterable[_Entry], submission_file: str) -> tuple[_Found, _Skipped]:
    metadata = _load_metadata(folder / GRADESCOPE_METADATA)
    on_disk = {e.name: e for e in entries}
    found: _Found = []
    skipped: _Skipped = []
    listed: set[str] = set()
    for key, record in metadata.items():
        name = str(key)
        entry = on_disk.get(name)
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            skipped.append((name, f"in {GRADESCOPE_METADATA}, but not a folder name"))
            continue
        listed.add(name)
        submitters = _submitters(record)
        if entry is None:
            skipped.append((name, f"in {GRADESCOPE_METADATA}, but not in the folder"))
        elif entry.kind != "dir":
            skipped.append((name, f"in {GRADESCOPE_METADATA}, but not a folder"))
        elif not _is_regular_file(entry.path / submission_file):
            skipped.append((name, _missing(entry.path, submission_file)))
        elif not submitters:
            skipped.append((name, f"no submitters listed for it in {GRADESCOPE_METADATA}"))
        else:
            try:
                student = safe_name(name)
            except RosterError:
                skipped.append((name, "no letter or digit in its name to make a student key of"))
                continue
            first = submitters[0]
            found.append((Submission(student, entry.path / submission_file, name=first.name, sid=first.sid,
                                     email=first.email, submitters=submitters), name))
    for entry in on_disk.values():
        if entry.name in listed or entry.name == GRADESCOPE_METADATA:
            continue
        skipped.append((entry.name, _always_skipped(entry) or f"not listed in {GRADESCOPE_METADATA}"))
    return found, skipped


_READERS = {"canvas": _read_canvas, "moodle": _read_moodle, "folders": _read_folders, "files": _read_files}
