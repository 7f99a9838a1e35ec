"""Errors: every failing liblogrep call raises LogrepError."""

import enum

from ._ffi import ffi, lib

__all__ = ["LogrepError", "Err", "check", "err_name", "err_str"]


def _err_members():
    members = {}
    for value, cname in sorted(ffi.typeof("logrep_err").elements.items()):
        assert cname.startswith("LOGREP_")
        name = cname[len("LOGREP_"):]
        # LOGREP_OK -> OK, LOGREP_ERR_X -> X, LOGREP_ERR__X (local) -> LOCAL_X
        if name.startswith("ERR__"):
            name = "LOCAL_" + name[len("ERR__"):]
        elif name.startswith("ERR_"):
            name = name[len("ERR_"):]
        members[name] = value
    return members


#: Every code of the logrep_err enum: Err.NOT_LEADER_OR_FOLLOWER == 6,
#: Err.LOCAL_CORRUPT == -105 (LOGREP_ERR__CORRUPT), Err.OK == 0.
Err = enum.IntEnum("Err", _err_members())


def err_name(code):
    """logrep_err_name: "NOT_LEADER_OR_FOLLOWER", "_CORRUPT", "NONE"."""
    return ffi.string(lib.logrep_err_name(int(code))).decode()


def err_str(code):
    """logrep_err_str: one sentence."""
    return ffi.string(lib.logrep_err_str(int(code))).decode()


class LogrepError(Exception):
    """A liblogrep error: `code` (a logrep_err value: Kafka's wire code when
    positive, a local error when <= -100), `name` as logrep_err_name gives
    it, and `detail`, the library's reason when it gave one."""

    def __init__(self, code, detail=None, call=None):
        self.code = int(code)
        self.name = err_name(self.code)
        self.description = err_str(self.code)
        self.detail = detail or None
        self.call = call
        msg = "%s (%d): %s" % (self.name, self.code, self.description)
        if call:
            msg = "%s: %s" % (call, msg)
        if self.detail:
            msg += " [%s]" % self.detail
        super().__init__(msg)

    @property
    def retriable(self):
        """Kafka classifies the wire error as retriable."""
        return bool(lib.logrep_err_is_retriable(self.code))

    @property
    def err(self):
        """The code as an Err member (the int when unknown)."""
        try:
            return Err(self.code)
        except ValueError:
            return self.code


def check(code, call=None, detail=None):
    """Raises LogrepError unless code is LOGREP_OK; returns None."""
    if code != 0:
        raise LogrepError(code, detail, call)
