"""Grading classic CS188 course folders (``test_cases/`` of ``.test``/``.solution`` files).

`load_course` reads and checks a folder (`is_classic_course` recognises one:
a ``CONFIG`` that gives ``order``); `grade_course` grades a classic student
file on it in the sandbox and returns the `GradeReport` our reports present.
The format, the question classes and the test classes are documented in
``docs/cs188.md``.
"""

from pacman.cs188.grading.course import ClassicCourse, ClassicQuestion, is_classic_course, load_course
from pacman.cs188.grading.format import ClassicFormatError, parse_classic_text, read_classic_file
from pacman.cs188.grading.grader import grade_course

__all__ = [
    "ClassicCourse",
    "ClassicQuestion",
    "ClassicFormatError",
    "is_classic_course",
    "load_course",
    "grade_course",
    "parse_classic_text",
    "read_classic_file",
]
