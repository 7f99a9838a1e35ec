"""The search order of logrep._ffi: environment first, then the source tree."""

import os
import subprocess
import sys

import pytest

from logrep import _ffi

PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(env, code):
    full = dict(os.environ, PYTHONPATH=PKG)
    for k, v in env.items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, check=False)


def test_environment_wins():
    assert _ffi.include_dir == os.environ.get("LOGREP_INCLUDE_DIR", _ffi.include_dir)
    if "LOGREP_LIBRARY" in os.environ:
        assert _ffi.library_path == os.environ["LOGREP_LIBRARY"]


def test_source_tree_include_by_default():
    r = _run({"LOGREP_INCLUDE_DIR": None},
             "import logrep; print(logrep.include_dir)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == os.path.join(_ffi.SOURCE_ROOT, "include")


@pytest.mark.parametrize("var,value,message", [
    ("LOGREP_INCLUDE_DIR", "/nonexistent", "holds no logrep.h"),
    ("LOGREP_LIBRARY", "/nonexistent/liblogrep.so", "does not exist"),
])
def test_bad_environment_is_an_import_error(var, value, message):
    r = _run({var: value}, "import logrep")
    assert r.returncode != 0
    assert "LoadError" in r.stderr and message in r.stderr
