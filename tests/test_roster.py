"""pacman.grading.roster: each download shape read from a folder in exactly that shape, junk skipped by name, errors."""

from __future__ import annotations

import os
import random
import unicodedata
from pathlib import Path

import pytest

from pacman.grading.roster import (
    GRADESCOPE_METADATA,
    MAX_KEY_LENGTH,
    SHAPES,
    Roster,
    RosterError,
    Submitter,
    read_roster,
    safe_name,
)

FILE = "multi_agents.py"


def _write(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _paths(roster: Roster) -> dict[str, Path]:
    return {s.student: s.path for s in roster.submissions}


def _reasons(roster: Roster) -> dict[str, str]:
    return dict(roster.skipped)


# --- one test per shape ------------------------------------------------------------------------------------------


def test_a_folder_of_py_files_is_one_student_per_file_named_by_the_file(tmp_path):
    alice = _write(tmp_path / "alice.py")
    bob = _write(tmp_path / "bob.py")
    jose = _write(tmp_path / "José Müller.py")
    _write(tmp_path / ".DS_Store")
    _write(tmp_path / "__MACOSX" / "._alice.py")
    _write(tmp_path / "notes.txt")
    (tmp_path / "extra").mkdir()

    roster = read_roster(tmp_path, FILE)

    assert roster.shape == "files"
    assert _paths(roster) == {"alice": alice, "bob": bob, "José_Müller": jose}
    assert [s.student for s in roster.submissions] == ["José_Müller", "alice", "bob"]
    assert {s.student: s.name for s in roster.submissions}["José_Müller"] == "José Müller"
    assert _reasons(roster) == {
        ".DS_Store": "hidden",
        "__MACOSX": "macOS archive metadata",
        "extra": "a folder; the submissions here are .py files, one per student",
        "notes.txt": "not a .py file",
    }


def test_a_folder_per_student_counts_only_the_submission_file_directly_inside(tmp_path):
    alice = _write(tmp_path / "alice" / FILE)
    bob = _write(tmp_path / "bob" / FILE)
    _write(tmp_path / "bob" / "notes.md")
    _write(tmp_path / "carol" / "agents.py")
    _write(tmp_path / "carol" / "search.py")
    (tmp_path / "dave").mkdir()
    _write(tmp_path / "erin" / "hw" / FILE)
    _write(tmp_path / "README.md")

    roster = read_roster(tmp_path, FILE)

    assert roster.shape == "folders"
    assert _paths(roster) == {"alice": alice, "bob": bob}
    assert _reasons(roster) == {
        "carol": "no multi_agents.py in it (has agents.py, search.py)",
        "dave": "no multi_agents.py in it",
        "erin": "no multi_agents.py in it",
        "README.md": "a file; the submissions here are folders holding multi_agents.py",
    }


def test_canvas_keeps_each_users_highest_resubmission_marks_late_and_lists_the_rest_as_superseded(tmp_path):
    for name in ("smithjane_1001_5001_multi_agents.py", "smithjane_1001_5001_multi_agents-1.py",
                 "doejohn_1002_5002_multi_agents.py", "leeann_late_1003_5003_multi_agents.py",
                 "leeann_1003_5003_notes.txt", "wongkim_1004_5004_multi_agents-9.py",
                 "wongkim_late_1004_5004_multi_agents-10.py", "smithjane_late_1001_5001_multi_agents-2.py"):
        _write(tmp_path / name)
    _write(tmp_path / "grades.csv")

    roster = read_roster(tmp_path, FILE)

    assert roster.shape == "canvas"
    assert _paths(roster) == {
        "1001": tmp_path / "smithjane_late_1001_5001_multi_agents-2.py",
        "1002": tmp_path / "doejohn_1002_5002_multi_agents.py",
        "1003": tmp_path / "leeann_late_1003_5003_multi_agents.py",
        "1004": tmp_path / "wongkim_late_1004_5004_multi_agents-10.py",  # -10 is after -9: numbers, not text
    }
    assert {s.student: (s.name, s.late) for s in roster.submissions} == {
        "1001": ("smithjane", True), "1002": ("doejohn", False), "1003": ("leeann", True), "1004": ("wongkim", True)}
    assert _reasons(roster) == {
        "smithjane_1001_5001_multi_agents.py": "superseded by smithjane_late_1001_5001_multi_agents-2.py",
        "smithjane_1001_5001_multi_agents-1.py": "superseded by smithjane_late_1001_5001_multi_agents-2.py",
        "wongkim_1004_5004_multi_agents-9.py": "superseded by wongkim_late_1004_5004_multi_agents-10.py",
        "leeann_1003_5003_notes.txt": "Canvas file of user 1003, but not multi_agents.py",
        "grades.csv": "not a Canvas submission name (NAME_USERID_SUBMISSIONID_FILE)",
    }


def test_moodle_folders_give_the_participant_id_as_key_and_the_full_name_with_spaces_and_accents(tmp_path):
    # macOS's unzip writes decomposed accents (NFD); the name read back is composed (NFC) all the same.
    jose_folder = unicodedata.normalize("NFD", "José Müller_12345_assignsubmission_file_")
    jose = _write(tmp_path / jose_folder / FILE)
    anne = _write(tmp_path / "Anne-Marie O'Neil_12346_assignsubmission_file_" / FILE)
    _write(tmp_path / "Zoë van der Berg_12347_assignsubmission_onlinetext_" / "onlinetext.html")
    _write(tmp_path / "No File_12348_assignsubmission_file_" / "report.pdf")
    _write(tmp_path / "instructions.pdf")

    roster = read_roster(tmp_path, FILE)

    assert roster.shape == "moodle"
    assert _paths(roster) == {"12345": jose, "12346": anne}
    assert {s.student: s.name for s in roster.submissions} == {"12345": "José Müller", "12346": "Anne-Marie O'Neil"}
    assert _reasons(roster) == {
        "Zoë van der Berg_12347_assignsubmission_onlinetext_": "a Moodle onlinetext submission, not a file submission",
        "No File_12348_assignsubmission_file_": "no multi_agents.py in it",
        "instructions.pdf": "not a Moodle submission name (Full Name_ID_assignsubmission_file_)",
    }


def test_moodle_without_folders_names_each_file_for_its_participant(tmp_path):
    ana = _write(tmp_path / "Ana Lúcia_501_assignsubmission_file_multi_agents.py")
    _write(tmp_path / "Ana Lúcia_501_assignsubmission_file_notes.txt")
    ben = _write(tmp_path / "Ben_Ito_502_assignsubmission_file_multi_agents.py")

    roster = read_roster(tmp_path, FILE)

    assert roster.shape == "moodle"
    assert _paths(roster) == {"501": ana, "502": ben}
    assert {s.student: s.name for s in roster.submissions} == {"501": "Ana Lúcia", "502": "Ben_Ito"}
    assert _reasons(roster) == {
        "Ana Lúcia_501_assignsubmission_file_notes.txt": "Moodle file of participant 501, but not multi_agents.py"}


GRADESCOPE_YML = """\
submission_1001:
  :submitters:
  - :name: Solo Student
    :sid: '100'
    :email: solo@berkeley.edu
  :created_at: 2024-02-01 10:11:12.123456789 -08:00
  :score: 10.0
submission_1002:
  :submitters:
  - :name: Pair One
    :sid: 200
    :email: one@berkeley.edu
  - :name: Pair Two
    :sid: '201'
    :email: two@berkeley.edu
  :created_at: 2024-02-02 10:11:12.000000000 -08:00
  :score: 7.5
submission_1003:
  :submitters:
  - :name: No File
    :sid: '300'
  :score: 0.0
submission_1004:
  :submitters:
  - :name: Not Downloaded
    :sid: '400'
"""


def test_gradescope_gives_one_submission_per_folder_with_every_group_member(tmp_path):
    solo = _write(tmp_path / "submission_1001" / FILE)
    pair = _write(tmp_path / "submission_1002" / FILE)
    _write(tmp_path / "submission_1003" / "agents.py")
    _write(tmp_path / "submission_9999" / FILE)
    _write(tmp_path / GRADESCOPE_METADATA, GRADESCOPE_YML)
    _write(tmp_path / "__MACOSX" / "._submission_metadata.yml")

    roster = read_roster(tmp_path, FILE)

    assert roster.shape == "gradescope"
    assert _paths(roster) == {"submission_1001": solo, "submission_1002": pair}
    by_key = {s.student: s for s in roster.submissions}
    assert by_key["submission_1001"].submitters == (Submitter("Solo Student", "100", "solo@berkeley.edu"),)
    assert by_key["submission_1002"].submitters == (Submitter("Pair One", "200", "one@berkeley.edu"),
                                                     Submitter("Pair Two", "201", "two@berkeley.edu"))
    pair_submission = by_key["submission_1002"]
    assert (pair_submission.name, pair_submission.sid, pair_submission.email) == (
        "Pair One", "200", "one@berkeley.edu")
    assert _reasons(roster) == {
        "submission_1003": "no multi_agents.py in it (has agents.py)",
        "submission_1004": "in submission_metadata.yml, but not in the folder",
        "submission_9999": "not listed in submission_metadata.yml",
        "__MACOSX": "macOS archive metadata",
    }


def test_gradescope_metadata_under_ruby_tags_or_without_colons_still_reads(tmp_path):
    _write(tmp_path / "submission_1" / FILE)
    _write(tmp_path / "submission_2" / FILE)
    _write(tmp_path / GRADESCOPE_METADATA, """\
submission_1: !ruby/hash:ActiveSupport::HashWithIndifferentAccess
  :submitters:
  - !ruby/object:Submitter
    :name: Tagged
    :sid: '1'
submission_2:
  submitters:
  - name: Plain
    email: plain@example.org
""")

    roster = read_roster(tmp_path, FILE)

    assert [s.submitters for s in roster.submissions] == [(Submitter("Tagged", "1", None),),
                                                          (Submitter("Plain", None, "plain@example.org"),)]


# --- mixed shapes -------------------------------------------------------------------------------------------------


def test_a_py_file_beside_a_canvas_download_is_skipped_not_taken_for_a_student(tmp_path):
    _write(tmp_path / "smithjane_1001_5001_multi_agents.py")
    _write(tmp_path / "helper.py")

    roster = read_roster(tmp_path, FILE)

    assert (roster.shape, list(_paths(roster))) == ("canvas", ["1001"])
    assert _reasons(roster) == {"helper.py": "not a Canvas submission name (NAME_USERID_SUBMISSIONID_FILE)"}


def test_the_shape_with_most_entries_wins_and_a_tie_goes_to_the_earlier_shape(tmp_path):
    majority = tmp_path / "majority"
    for name in ("ann", "ben", "cy"):
        _write(majority / f"{name}.py")
    _write(majority / "dee" / FILE)
    tie = tmp_path / "tie"
    _write(tie / "ann.py")
    _write(tie / "ben" / FILE)

    assert (read_roster(majority, FILE).shape, _reasons(read_roster(majority, FILE))) == (
        "files", {"dee": "a folder; the submissions here are .py files, one per student"})
    assert SHAPES.index("folders") < SHAPES.index("files")
    assert (read_roster(tie, FILE).shape, list(_paths(read_roster(tie, FILE)))) == ("folders", ["ben"])


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_symbolic_links_are_skipped_not_followed(tmp_path):
    outside = _write(tmp_path / "outside" / "secret.py")
    folder = tmp_path / "class"
    _write(folder / "ann.py")
    (folder / "ben.py").symlink_to(outside)
    _write(folder / "cy" / "readme.txt")
    (folder / "cy" / FILE).symlink_to(outside)

    roster = read_roster(folder, FILE)

    assert list(_paths(roster)) == ["ann"]
    assert _reasons(roster) == {"ben.py": "a symbolic link (not followed)",
                                "cy": "a folder; the submissions here are .py files, one per student"}


# --- errors -------------------------------------------------------------------------------------------------------


def test_a_missing_folder_or_a_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(RosterError, match="no folder .*nowhere"):
        read_roster(tmp_path / "nowhere", FILE)
    _write(tmp_path / "class.zip")
    with pytest.raises(RosterError, match="class.zip' is a file, not a folder"):
        read_roster(tmp_path / "class.zip", FILE)
    assert issubclass(RosterError, ValueError)


def test_a_folder_without_submissions_is_an_error_that_says_what_it_skipped(tmp_path):
    with pytest.raises(RosterError, match=r"no submission of multi_agents.py in .* \(it is empty\)"):
        read_roster(tmp_path, FILE)
    _write(tmp_path / ".DS_Store")
    _write(tmp_path / "notes.txt")
    with pytest.raises(RosterError, match=r"skipped \.DS_Store: hidden; notes\.txt: not a \.py file\)"):
        read_roster(tmp_path, FILE)


def test_a_gradescope_export_whose_folders_all_lack_the_file_is_an_error(tmp_path):
    _write(tmp_path / GRADESCOPE_METADATA, "submission_1:\n  :submitters:\n  - :name: A\n")
    (tmp_path / "submission_1").mkdir()
    with pytest.raises(RosterError, match="submission_1: no multi_agents.py in it"):
        read_roster(tmp_path, FILE)


@pytest.mark.parametrize("names", [
    ("Alice.py", "alice.py"),            # one key on macOS and Windows, whose file names ignore case
    ("ann lee.py", "ann_lee.py"),        # one key once made safe
])
def test_two_files_for_one_student_key_are_an_error_naming_both(tmp_path, names):
    for name in names:
        _write(tmp_path / name)
    with pytest.raises(RosterError, match="two submissions for student") as caught:
        read_roster(tmp_path, FILE)
    assert all(repr(name) in str(caught.value) for name in names)


def test_two_canvas_files_with_one_resubmission_number_for_one_user_are_an_error_naming_both(tmp_path):
    names = ("smithjane_1001_5001_multi_agents-1.py", "smithjane_late_1001_5001_multi_agents-1.py")
    for name in names:
        _write(tmp_path / name)
    with pytest.raises(RosterError, match="two submissions for student '1001'") as caught:
        read_roster(tmp_path, FILE)
    assert all(repr(name) in str(caught.value) for name in names)


def test_two_moodle_folders_for_one_participant_are_an_error(tmp_path):
    _write(tmp_path / "Ann Lee_7_assignsubmission_file_" / FILE)
    _write(tmp_path / "Ann B. Lee_7_assignsubmission_file_" / FILE)
    with pytest.raises(RosterError, match="'Ann B. Lee_7_assignsubmission_file_' and 'Ann Lee_7_assignsubmission"):
        read_roster(tmp_path, FILE)


@pytest.mark.parametrize("text, message", [
    ("submission_1: [unclosed\n", "is not readable YAML"),
    ("- submission_1\n", "should map each submission folder to its submitters, found a list"),
])
def test_unreadable_gradescope_metadata_is_an_error_naming_the_file(tmp_path, text, message):
    _write(tmp_path / "submission_1" / FILE)
    _write(tmp_path / GRADESCOPE_METADATA, text)
    with pytest.raises(RosterError, match=message) as caught:
        read_roster(tmp_path, FILE)
    assert GRADESCOPE_METADATA in str(caught.value)


@pytest.mark.parametrize("bad", ["multi_agents", "sub/multi_agents.py", ".py", ".hidden.py", "a\\b.py"])
def test_a_submission_file_that_is_not_a_plain_py_name_is_refused(tmp_path, bad):
    _write(tmp_path / "ann.py")
    with pytest.raises(RosterError, match="expected a submission file name"):
        read_roster(tmp_path, bad)


# --- safe names ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("alice", "alice"),
    ("José Müller", "José_Müller"),
    (unicodedata.normalize("NFD", "José"), "José"),
    ("王伟", "王伟"),
    ("../../etc/passwd", "etc_passwd"),
    ("-rf", "rf"),
    ("a  /\\:*?\"<>|  b", "a_b"),
    ("CON", "CON_"),
    ("lpt1.txt", "lpt1_.txt"),
    ("console", "console"),
    ("x" * 300, "x" * MAX_KEY_LENGTH),
    ("a" * (MAX_KEY_LENGTH - 1) + " bc", "a" * (MAX_KEY_LENGTH - 1)),   # no "_" left at the cut
])
def test_safe_name(text, expected):
    assert safe_name(text) == expected


@pytest.mark.parametrize("text", ["", "...", "___", "😀", " / "])
def test_safe_name_refuses_a_text_with_nothing_usable(text):
    with pytest.raises(RosterError, match="no letter or digit"):
        safe_name(text)


def test_safe_names_of_random_texts_are_plain_file_names_and_stay_as_they_are():
    rng = random.Random(7)
    alphabet = "aZ09_-. /\\:*?\"<>|\x00\n\téü王😀\u200b\u0301"
    made = 0
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))
        try:
            name = safe_name(text)
        except RosterError:
            continue
        made += 1
        assert safe_name(name) == name
        assert all(c.isalnum() or c in "-_." for c in name)
        assert name[0] not in "._-" and name[-1] not in "._-"
        assert 0 < len(name) <= MAX_KEY_LENGTH + 1
    assert made > 1000


# --- random folders -----------------------------------------------------------------------------------------------


_FIRST = ["ana", "Björn", "Łukasz", "李", "محمد", "zoe", "Olu"]
_FULL = ["José Müller", "Anne-Marie O'Neil", "Zoë van der Berg", "Ngô Bảo Châu", "Ann_Lee", "O. K"]


class _Plan:
    """A folder being built: what `read_roster` must find in it (key -> path) and skip (names)."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.expected: dict[str, Path] = {}
        self.junk: set[str] = set()
        self.serial = 0

    def unique(self) -> int:
        self.serial += 1
        return self.serial

    def junk_file(self, name: str) -> None:
        _write(self.root / name)
        self.junk.add(name)

    def junk_folder(self, name: str, *files: str) -> None:
        (self.root / name).mkdir()
        for file in files:
            _write(self.root / name / file)
        self.junk.add(name)

    def common_junk(self) -> None:
        choices = [
            lambda: self.junk_file(".DS_Store"),
            lambda: self.junk_folder("__MACOSX", "._x"),
            lambda: self.junk_folder(".git", "HEAD"),
            lambda: self.junk_file("notes.txt"),
            lambda: self.junk_file("grades.csv"),
            lambda: self.junk_folder("empty"),
        ]
        for make in self.rng.sample(choices, self.rng.randint(0, len(choices))):
            make()


def _plant_files(plan: _Plan, students: int) -> None:
    for _ in range(students):
        name = f"{plan.rng.choice(_FIRST)}_{plan.unique()}"
        plan.expected[name] = _write(plan.root / f"{name}.py")
    if plan.rng.random() < 0.5:
        plan.junk_file("data.json")


def _plant_folders(plan: _Plan, students: int) -> None:
    for _ in range(students):
        name = f"{plan.rng.choice(_FIRST)}-{plan.unique()}"
        plan.expected[name] = _write(plan.root / name / FILE)
    if plan.rng.random() < 0.5:
        plan.junk_folder(f"nofile_{plan.unique()}", "agents.py")
    if plan.rng.random() < 0.3:
        plan.junk_file("stray.py")   # one loose .py at most: it ties at worst, and a tie goes to "folders"


def _plant_canvas(plan: _Plan, students: int) -> None:
    for _ in range(students):
        user = str(1000 + plan.unique())
        name = "".join(plan.rng.choice("abcdefghij") for _ in range(plan.rng.randint(3, 12)))
        numbers = sorted(plan.rng.sample(range(0, 12), plan.rng.randint(1, 3)))
        for number in numbers:
            late = "late_" if plan.rng.random() < 0.3 else ""
            original = FILE if number == 0 else f"multi_agents-{number}.py"
            path = _write(plan.root / f"{name}_{late}{user}_{9000 + int(user)}_{original}")
            if number == numbers[-1]:
                plan.expected[user] = path
            else:
                plan.junk.add(path.name)
        if plan.rng.random() < 0.3:
            plan.junk_file(f"{name}_{user}_{9000 + int(user)}_readme.txt")


def _plant_moodle(plan: _Plan, students: int) -> None:
    for _ in range(students):
        participant = str(plan.unique() * 7)
        folder = f"{plan.rng.choice(_FULL)}_{participant}_assignsubmission_file_"
        plan.expected[participant] = _write(plan.root / folder / FILE)
        if plan.rng.random() < 0.3:
            plan.junk_folder(f"{plan.rng.choice(_FULL)}_{participant}_assignsubmission_onlinetext_", "text.html")
    if plan.rng.random() < 0.5:
        plan.junk_folder(f"Late Comer_{plan.unique() * 7}_assignsubmission_file_", "report.pdf")


def _plant_gradescope(plan: _Plan, students: int) -> None:
    lines = []
    for _ in range(students):
        folder = f"submission_{plan.unique()}"
        plan.expected[folder] = _write(plan.root / folder / FILE)
        lines.append(f"{folder}:\n  :submitters:\n")
        for member in range(plan.rng.randint(1, 3)):
            lines.append(f"  - :name: {plan.rng.choice(_FULL)}\n    :sid: '{plan.unique()}'\n"
                         f"    :email: s{member}@example.edu\n")
        lines.append(f"  :created_at: 2024-03-0{plan.rng.randint(1, 9)} 09:00:00.000000000 -07:00\n"
                     f"  :score: {plan.rng.randint(0, 20)}.0\n")
    if plan.rng.random() < 0.5:
        missing = f"submission_{plan.unique()}"
        plan.junk_folder(missing, "agents.py")
        lines.append(f"{missing}:\n  :submitters:\n  - :name: Someone\n")
    if plan.rng.random() < 0.5:
        absent = f"submission_{plan.unique()}"
        plan.junk.add(absent)
        lines.append(f"{absent}:\n  :submitters:\n  - :name: Nobody\n")
    if plan.rng.random() < 0.5:
        plan.junk_folder(f"submission_{plan.unique()}", FILE)   # on disk, but not in the metadata
    _write(plan.root / GRADESCOPE_METADATA, "".join(lines))


_PLANTERS = {"files": _plant_files, "folders": _plant_folders, "canvas": _plant_canvas, "moodle": _plant_moodle,
             "gradescope": _plant_gradescope}


def test_random_folders_of_every_shape_give_every_planted_submission_and_skip_every_junk_entry(tmp_path):
    assert set(_PLANTERS) == set(SHAPES)
    rng = random.Random(20240301)
    seen = set()
    for index in range(150):
        shape = rng.choice(SHAPES)
        seen.add(shape)
        plan = _Plan(tmp_path / f"class{index}", rng)
        plan.root.mkdir()
        plan.common_junk()
        _PLANTERS[shape](plan, rng.randint(1, 8))

        roster = read_roster(plan.root, FILE)

        assert roster.shape == shape, plan.root
        assert _paths(roster) == plan.expected, plan.root
        assert {name for name, _ in roster.skipped} == plan.junk, plan.root
        assert all(reason for _, reason in roster.skipped)
        assert [s.student for s in roster.submissions] == sorted(plan.expected)
        assert all(safe_name(s.student) == s.student for s in roster.submissions)
    assert seen == set(SHAPES)
