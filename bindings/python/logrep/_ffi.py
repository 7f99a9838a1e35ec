"""Finds liblogrep's headers and shared library and opens them with cffi in
ABI mode (ffi.cdef + ffi.dlopen): nothing is compiled at import time.

Search order, headers (the directory holding logrep.h and logrep/):
  1. $LOGREP_INCLUDE_DIR
  2. include/ of the source tree this package sits in (bindings/python/..)
  3. `pkg-config --variable=includedir liblogrep`
  4. /usr/local/include, /usr/include

Search order, library:
  1. $LOGREP_LIBRARY (a path to liblogrep.so)
  2. build/liblogrep.so of the source tree this package sits in
  3. ctypes.util.find_library("logrep") (the dynamic linker's paths)
"""

import ctypes.util
import os
import shutil
import subprocess

import cffi

from . import _headers

__all__ = ["ffi", "lib", "include_dir", "library_path", "constants", "LoadError"]


class LoadError(ImportError):
    """liblogrep's headers or library could not be found or opened."""


_HERE = os.path.dirname(os.path.abspath(__file__))
#: The source tree's root when this package is bindings/python/logrep of it.
SOURCE_ROOT = os.path.normpath(os.path.join(_HERE, "..", "..", ".."))


def _has_headers(d):
    return bool(d) and os.path.isfile(os.path.join(d, "logrep.h")) and os.path.isdir(
        os.path.join(d, "logrep")
    )


def _pkg_config_includedir():
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        r = subprocess.run(
            [exe, "--variable=includedir", "liblogrep"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def find_include_dir():
    env = os.environ.get("LOGREP_INCLUDE_DIR")
    if env:
        if not _has_headers(env):
            raise LoadError("LOGREP_INCLUDE_DIR=%s holds no logrep.h and logrep/" % env)
        return env
    candidates = []
    for get in (lambda: os.path.join(SOURCE_ROOT, "include"), _pkg_config_includedir,
                lambda: "/usr/local/include", lambda: "/usr/include"):
        d = get()  # pkg-config runs only when the source tree has no headers
        if d:
            candidates.append(d)
            if _has_headers(d):
                return d
    raise LoadError(
        "liblogrep's headers not found (set LOGREP_INCLUDE_DIR); looked in: %s"
        % ", ".join(candidates)
    )


def find_library():
    env = os.environ.get("LOGREP_LIBRARY")
    if env:
        if not os.path.exists(env):
            raise LoadError("LOGREP_LIBRARY=%s does not exist" % env)
        return env
    local = os.path.join(SOURCE_ROOT, "build", "liblogrep.so")
    if os.path.exists(local):
        return local
    found = ctypes.util.find_library("logrep")
    if found:
        return found
    raise LoadError(
        "liblogrep not found (set LOGREP_LIBRARY); looked at %s and the linker's paths" % local
    )


def _open():
    inc = find_include_dir()
    path = find_library()
    f = cffi.FFI()
    headers = _headers.closure(list(_headers.HEADERS), inc)
    consts = {}
    for h in headers:
        consts.update(h.constants)
    try:
        f.cdef("\n".join(h.cdef for h in headers))
    except cffi.CDefError as e:  # a header construct cffi refuses
        raise LoadError("liblogrep headers in %s: %s" % (inc, e)) from e
    try:
        library = f.dlopen(path)
    except OSError as e:
        raise LoadError("cannot open liblogrep at %s: %s" % (path, e)) from e
    return f, library, inc, path, consts


ffi, lib, include_dir, library_path, constants = _open()
