"""Configuration (logrep_conf): Kafka's property names, string values."""

import logging

from ._ffi import ffi, lib
from ._handle import Handle
from .errors import LogrepError, check

__all__ = ["Conf", "properties", "LEVELS"]

#: liblogrep log levels (LOGREP_LEVEL_*) and the logging levels they map to.
LEVELS = {
    lib.LOGREP_LEVEL_ERROR: logging.ERROR,
    lib.LOGREP_LEVEL_WARN: logging.WARNING,
    lib.LOGREP_LEVEL_INFO: logging.INFO,
    lib.LOGREP_LEVEL_DEBUG: logging.DEBUG,
    lib.LOGREP_LEVEL_TRACE: logging.DEBUG - 5,
}


def _text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class Conf(Handle):
    """A logrep_conf. Constructors copy what they need from it, so one conf
    may serve many handles and be changed or closed after.

    >>> c = Conf({"segment.bytes": 1 << 20})
    >>> c["segment.bytes"]
    '1048576'
    """

    def __init__(self, props=None, logger=None, level=None):
        self._h = lib.logrep_conf_new()
        if self._h == ffi.NULL:
            raise MemoryError("logrep_conf_new")
        self._logger_cb = None
        for k, v in (props or {}).items():
            self.set(k, v)
        if logger is not None:
            self.set_logger(logger, level)

    _what = "conf"
    _free = staticmethod(lib.logrep_conf_free)

    @property
    def callbacks(self):
        """Callback objects handles made from this conf must keep alive."""
        return (self._logger_cb,) if self._logger_cb is not None else ()

    # -- properties
    def set(self, name, value):
        err = ffi.new("char[256]")
        rc = lib.logrep_conf_set(self.ptr, name.encode(), _text(value).encode(), err, 256)
        if rc:
            raise LogrepError(rc, "%s: %s" % (name, ffi.string(err).decode(errors="replace")),
                              "logrep_conf_set")

    def get(self, name):
        needed = ffi.new("size_t *")
        buf = ffi.new("char[128]")
        check(lib.logrep_conf_get(self.ptr, name.encode(), buf, 128, needed), "logrep_conf_get",
              name)
        if needed[0] > 128:
            buf = ffi.new("char[]", needed[0])
            check(lib.logrep_conf_get(self.ptr, name.encode(), buf, needed[0], needed),
                  "logrep_conf_get", name)
        return ffi.string(buf).decode()

    def get_int(self, name):
        out = ffi.new("int64_t *")
        check(lib.logrep_conf_get_int64(self.ptr, name.encode(), out), "logrep_conf_get_int64",
              name)
        return out[0]

    __getitem__ = get
    __setitem__ = set

    def update(self, props):
        for k, v in props.items():
            self.set(k, v)

    def copy(self):
        c = Conf.__new__(Conf)
        c._h = lib.logrep_conf_dup(self.ptr)
        if c._h == ffi.NULL:
            raise MemoryError("logrep_conf_dup")
        c._logger_cb = self._logger_cb
        return c

    # -- logging
    def set_logger(self, fn, level=None):
        """Sends the library's log lines to fn(level, subsys, msg), or, when
        fn is a logging.Logger, to it (levels mapped by LEVELS). `level` is
        the most verbose LOGREP_LEVEL_* passed (default INFO). None turns
        logging off. The callback lives as long as this conf and every
        handle that keeps it (nodes and logs made by this binding do)."""
        if fn is None:
            lib.logrep_conf_set_logger(self.ptr, ffi.NULL, ffi.NULL, 0)
            self._logger_cb = None
            return
        if isinstance(fn, logging.Logger):
            pylog = fn

            def fn(level_, subsys, msg):  # noqa: E306
                pylog.log(LEVELS.get(level_, logging.INFO), "[%s] %s", subsys, msg)

        target = fn

        @ffi.callback("logrep_logger_fn")
        def cb(ctx, lvl, subsys, msg, length):
            try:
                target(lvl, ffi.string(subsys).decode(errors="replace"),
                       ffi.unpack(msg, length).decode(errors="replace"))
            except Exception:  # noqa: BLE001 - a log hook must not unwind C
                logging.getLogger("logrep").exception("log hook failed")

        self._logger_cb = cb
        lib.logrep_conf_set_logger(self.ptr, cb, ffi.NULL,
                                   lib.LOGREP_LEVEL_INFO if level is None else level)


def properties():
    """Every known property: {name: documentation}."""
    out = {}
    name = ffi.new("const char **")
    doc = ffi.new("const char **")
    for i in range(lib.logrep_conf_property_count()):
        check(lib.logrep_conf_property(i, name, doc), "logrep_conf_property")
        out[ffi.string(name[0]).decode()] = ffi.string(doc[0]).decode() if doc[0] else ""
    return out


def construct(ctor, out_type, conf, *args, detail=None):
    """Calls ctor(conf, *args, &out) with conf a Conf, a dict of properties
    or None, and returns out; raises LogrepError naming the call."""
    c, owned = as_conf(conf)
    out = ffi.new(out_type)
    try:
        check(ctor(c.ptr if c else ffi.NULL, *args, out), ctor.__name__, detail)
    finally:
        if owned:
            c.close()
    return out[0]


def as_conf(conf):
    """(Conf, owned) for a Conf, a dict of properties or None."""
    if conf is None:
        return None, False
    if isinstance(conf, Conf):
        return conf, False
    return Conf(conf), True
