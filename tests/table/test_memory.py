"""The daemon's many threads share a few malloc arenas (glibc), and elsewhere nothing breaks."""

import ctypes
import platform

import pytest

from companion.table import memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="arenas per thread are glibc's")
def test_glibc_agrees_to_share_two_arenas():
    assert memory.few_arenas() is True


def test_a_libc_without_mallopt_is_left_as_it_is(monkeypatch):
    def no_libc(*args, **kwargs):
        raise OSError("no such library")

    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    assert memory.few_arenas() is False


def test_finding_the_c_library_starts_no_program(monkeypatch):
    """The C library is the one the interpreter runs on: looking for it by name ran `ldconfig -p`, a second
    process at every start of the table."""
    import subprocess

    def no_program(*args, **kwargs):
        raise AssertionError(f"started {args[0]!r}")

    monkeypatch.setattr(subprocess, "Popen", no_program)
    memory.few_arenas()
