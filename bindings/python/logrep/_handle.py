"""The life of a C handle owned by a Python object."""


class Handle:
    """Owns one C handle in self._h: close() frees it once (also on
    garbage collection), `with` closes it. Subclasses define _free(h)."""

    _h = None
    _what = "handle"

    def _free(self, h):
        raise NotImplementedError

    @property
    def ptr(self):
        if self._h is None:
            raise ValueError("%s is closed" % self._what)
        return self._h

    @property
    def closed(self):
        return self._h is None

    def close(self):
        h, self._h = self._h, None
        if h is not None:
            self._free(h)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
