"""Memory checked before it is taken (`pacman.memory`): the figures, the refusal's words, the machine's memory."""

from __future__ import annotations

import pytest

from pacman.errors import PacmanError
from pacman.memory import (LIMIT_VARIABLE, Memory, MemoryRefusal, batch_bytes, check_memory, format_bytes,
                           machine_memory, solver_bytes, vector_env_bytes)


def test_bytes_are_written_in_powers_of_1024():
    assert [format_bytes(n) for n in (0, 1023, 1024, 1536, 5 * 2**20, 2**30 * 95.6, 3 * 2**40)] == [
        "0 bytes", "1,023 bytes", "1.0 KB", "1.5 KB", "5.0 MB", "95.6 GB", "3.0 TB"]


def test_the_estimates_are_their_documented_sums():
    assert vector_env_bytes(220, 1320, 10, compiled=True) == 10 * (7 * 1320 + 1024)
    assert vector_env_bytes(220, 1320, 10, compiled=False) == 10 * (200 * 220 + 13 * 1320 + 8192)
    assert solver_bytes(1000) == 640_000
    # a line of 4 KB, and 32 bytes per move time up to 500 moves (none without a limit); 128 MB a worker
    assert batch_bytes(10, [2200, None, 100], workers=2) == 10 * (3 * 4096 + 32 * 500 + 32 * 100) + 2 * 128 * 2**20


def test_a_request_that_fits_passes_and_one_that_does_not_is_refused_naming_both_figures():
    memory = Memory(total=16 * 2**30, available=4 * 2**30)
    check_memory("a small job", 4 * 2**30, memory=memory)
    with pytest.raises(MemoryRefusal) as refused:
        check_memory("a big job", 5 * 2**30, "5 units of 1 GB", memory=memory)
    assert str(refused.value) == ("a big job needs about 5.0 GB (5 units of 1 GB), more than the 4.0 GB of memory "
                                  "this machine has free (16.0 GB in all)")
    assert isinstance(refused.value, PacmanError)  # exit status 2 on the command line


def test_the_machine_memory_and_the_environment_cap(monkeypatch):
    memory = machine_memory()
    assert memory is not None and 0 < memory.available <= memory.total  # Linux: /proc/meminfo
    monkeypatch.setenv(LIMIT_VARIABLE, "1.5G")
    capped = machine_memory()
    assert capped.available == min(memory.available, int(1.5 * 2**30)) and capped.total == memory.total
    for bad in ("lots", "-1G", "0", "inf"):
        monkeypatch.setenv(LIMIT_VARIABLE, bad)
        with pytest.raises(PacmanError, match=f"{LIMIT_VARIABLE}='{bad}': expected a number of bytes"):
            machine_memory()
