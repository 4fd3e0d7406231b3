"""Similarity of a class's submissions: every pair compared with copydetect, the starter excluded.

`compare_submissions` fingerprints each student's file with copydetect's
winnowing (k-grams of the code tokenised by Pygments, every name turned into
one letter, comments, whitespace and the text of strings dropped, so renames,
reformatting and new comments leave the fingerprints as they were), removes
every fingerprint the assignment's starter file has, and returns the pairs
whose share of code in common is above a threshold, with copydetect's HTML
report if asked. It is what ``pacman-ai grade ASSIGNMENT DIR --similarity
REPORT.html`` runs.

copydetect is an optional dependency (``pip install "pacman-ai[class]"``),
imported only when submissions are compared. A high share is a reason for a
person to read both files, never a verdict: the report shows them side by side.

>>> pairs = compare_submissions({"ada": Path("ada/multi_agents.py"),      # doctest: +SKIP
...                              "bob": Path("bob/multi_agents.py")}, Path("starter.py"))
>>> [(p.first, p.second, round(p.share, 2)) for p in pairs]               # doctest: +SKIP
[('ada', 'bob', 0.93)]
"""

from __future__ import annotations

import html
import math
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pacman.errors import PacmanError
from pacman.files import read_input_file, write_atomically
from pacman.grading.assignment import MAX_STARTER_BYTES
from pacman.grading.grader import SubmissionError, read_submission

__all__ = ["SimilarPair", "SimilarityError", "DEFAULT_THRESHOLD", "MIN_COMMON_CHARACTERS", "compare_submissions"]

#: The share of code in common above which a pair is returned. Measured with tests/test_similarity.py's eight
#: independently written evaluation functions, each holding the starter: independent pairs shared at most 0.13
#: (most nothing at all), 0.21 when both were disguised; a disguised copy (every name renamed, functions
#: reordered, comments and blank lines changed, a few lines added) shared at least 0.84 with its original, and
#: two students who each disguised the same source at least 0.56 with each other (300 random classes). The bar
#: sits near the middle of that gap, a little towards the independent side: a pair flagged wrongly costs a
#: person a reading, a copy missed costs more. With the starter counted, independent pairs shared 0.44 to 0.59.
DEFAULT_THRESHOLD = 0.4

#: copydetect's noise threshold: the k of its k-grams, in characters of the tokenised code (where a name is one
#: letter, so 25 characters are about one or two lines). Common runs shorter than this are never counted.
_NOISE_CHARACTERS = 25
#: copydetect's guarantee threshold: every common run this long is found. Equal to the noise threshold, so no
#: k-gram is winnowed away: a class's files are small, and exact shares cost little.
_GUARANTEE_CHARACTERS = 25
#: The least code in common, in characters of tokenised code (about four to six lines), for a pair to count as
#: sharing anything. Where a student's edit meets the starter, k-grams that span both are the student's own
#: (up to 2 x 24 characters at each edit, even for an edit that only deletes), so two students who handed in
#: the starter with the same one-line change share "all" of their tiny own code: measured, up to 59 characters
#: in common at share 1.0. Independent solutions had at most 67 characters in common, disguised copies at least 328.
MIN_COMMON_CHARACTERS = 100
#: File names the report shows as they are (copydetect writes them into its HTML unescaped).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class SimilarityError(PacmanError):
    """Submissions that cannot be compared: a bad student key or threshold, or a file that cannot be read (the
    message names the student and the file)."""


@dataclass(frozen=True)
class SimilarPair:
    """Two students whose submissions share code beyond the starter."""

    first: str
    """The student key that sorts first."""
    second: str
    """The other student key (``first < second``)."""
    share_first: float
    """The share (0..1) of `first`'s own code, the starter's left out, that is also in `second`'s file."""
    share_second: float
    """The share (0..1) of `second`'s own code that is also in `first`'s file."""

    @property
    def share(self) -> float:
        """The larger of the two shares: what a pair is flagged and sorted by.

        A student who copies a whole file and pads it with code of their own
        lowers the copy's share, not the original's, so the larger share is the
        one that says a file was taken. (Its limit: a very short file found
        inside a long one has a large share too.)
        """
        return max(self.share_first, self.share_second)


def compare_submissions(files: Mapping[str, Path], starter: Path | None, threshold: float = DEFAULT_THRESHOLD,
                        report: Path | None = None) -> list[SimilarPair]:
    """The pairs of `files` (student key -> that student's file, all for one assignment) sharing more than
    `threshold` of their code, the code of `starter` left out; sorted by share, largest first, then by names.

    A pair with fewer than `MIN_COMMON_CHARACTERS` of tokenised code in common
    counts as sharing nothing (in the result and in the report): two students
    who made the same small change to the starter have not shown copying.

    Every file is read whole first (a regular UTF-8 file of at most
    `pacman.grading.grader.MAX_SUBMISSION_BYTES`, as grading reads it): one that
    cannot be is a `SimilarityError` naming the student and the file, and
    nothing is compared, since a class checked without one of its files would
    look checked. A file need not compile: the tokens are compared, not the
    program. Files are read as Python whatever their names.

    `report`, when given, receives copydetect's HTML report (every pair above
    `threshold`, the common code highlighted, each file shown as
    ``STUDENT/FILENAME``), written atomically: the whole file or, on failure, the
    file as it was. With fewer than two files nothing is compared, the result is
    empty, and the report is a short page saying so, so that the path never
    keeps a report of an earlier run. copydetect opens no browser and prints
    nothing.
    """
    if (isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or math.isnan(threshold)
            or not 0 <= threshold <= 1):
        raise SimilarityError(f"similarity threshold {threshold!r} must be a number from 0 to 1")
    for student in files:
        _check_student(student)
    copydetect = _import_copydetect()
    sources = {student: _read_submission(student, path) for student, path in files.items()}
    starter_source = None if starter is None else _read_starter(starter)
    students = sorted(sources)
    if len(students) < 2:
        if report is not None:
            _write_report(report, _nothing_compared_page(students))
        return []

    with tempfile.TemporaryDirectory(prefix="pacman-similarity-") as folder:
        root = os.path.realpath(folder)
        shown = {}  # each copy's folder as written in copydetect's report -> how the report names it
        detector = copydetect.CopyDetector(
            noise_t=_NOISE_CHARACTERS, guarantee_t=_GUARANTEE_CHARACTERS, display_t=float(threshold),
            force_language="python", autoopen=False, silent=True, out_file=os.path.join(root, "report.html"))
        if starter_source is not None:
            detector.add_file(_copy(root, "starter", Path(starter).name, starter_source), type="boilerplate")
        for index, student in enumerate(students):
            # Folders are numbered, not named by key: a key may hold characters a file name cannot.
            folder_name = f"s{index:05d}"
            detector.add_file(_copy(root, folder_name, Path(files[student]).name, sources[student]))
            shown[os.path.join(root, folder_name) + os.sep] = html.escape(student) + "/"
        detector.run()
        skipped = [student for student, path in zip(students, detector.test_files) if path not in detector.file_data]
        if skipped:  # copydetect skips, with a log line, a file it cannot read; ours were written as UTF-8 above
            raise SimilarityError(f"copydetect could not fingerprint the files of {', '.join(map(repr, skipped))}")
        shares = detector.similarity_matrix  # [i, j] = (share of file i in file j, share of file j in file i)
        too_little = detector.token_overlap_matrix < MIN_COMMON_CHARACTERS
        too_little[np.diag_indices_from(too_little)] = False  # the diagonal (never compared) stays as it is: -1
        shares[too_little] = 0.0  # in the result and in the report alike
        pairs = [SimilarPair(students[i], students[j], float(shares[i, j, 0]), float(shares[i, j, 1]))
                 for i in range(len(students)) for j in range(i + 1, len(students))]
        if report is not None:
            with warnings.catch_warnings():  # copydetect's own use of a deprecated importlib call: not the user's
                warnings.simplefilter("ignore", DeprecationWarning)
                page = detector.generate_html_report(output_mode="return")
            for written, name in shown.items():
                page = page.replace(written, name)
            _write_report(report, page.replace(root + os.sep, ""))
    flagged = [pair for pair in pairs if pair.share > threshold]
    return sorted(flagged, key=lambda pair: (-pair.share, pair.first, pair.second))


def _check_student(student: Any) -> None:
    if not isinstance(student, str) or not student.strip():
        raise SimilarityError(f"student key {student!r} must be a non-empty string")


def _import_copydetect() -> Any:
    try:
        import matplotlib

        # copydetect draws its report's figures with pyplot: keep a command-line run off any GUI backend, but leave
        # the backend of a program (a notebook) that already uses pyplot as it is.
        if "matplotlib.pyplot" not in sys.modules:
            matplotlib.use("Agg")
        import copydetect
    except ModuleNotFoundError as exc:
        missing = "" if exc.name == "copydetect" else f" ({exc.name}, which it uses, is missing)"
        raise ImportError(f'the similarity check needs copydetect{missing}: pip install "pacman-ai[class]"') from None
    return copydetect


def _read_submission(student: str, path: Path) -> str:
    try:
        return read_submission(path)
    except SubmissionError as exc:
        raise SimilarityError(f"student {student!r}: {exc}") from None


def _read_starter(path: Path) -> str:
    data = read_input_file(path, "the assignment's starter file", MAX_STARTER_BYTES, SimilarityError)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SimilarityError(f"{path}: the starter file is not UTF-8 text (byte {exc.start})") from None


def _copy(root: str, folder: str, name: str, source: str) -> str:
    """Write `source` to ROOT/FOLDER/NAME and return that path; the report shows NAME, so an odd one (which
    copydetect would write into the HTML as it is) becomes ``submission.py``."""
    os.mkdir(os.path.join(root, folder))
    path = os.path.join(root, folder, name if _PLAIN_NAME.fullmatch(name) else "submission.py")
    with open(path, "w", encoding="utf-8", newline="") as out:
        # Pygments reads every line ending as "\n": one ending keeps the report's highlighting on the right text.
        out.write(source.replace("\r\n", "\n").replace("\r", "\n"))
    return path


def _nothing_compared_page(students: list[str]) -> str:
    named = ", ".join(html.escape(student) for student in students) or "none"
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Similarity report</title></head><body>\n"
            f"<h1>Similarity report</h1>\n<p>Fewer than two submissions (students: {named}): nothing was "
            "compared.</p>\n</body></html>\n")


def _write_report(path: Path, page: str) -> None:
    def write(temporary: str) -> None:
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(page)

    write_atomically(path, write)
