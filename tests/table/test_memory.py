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
