"""Kafka wire messages (logrep_msg, <logrep/proto.h>): build a request or
response from a dict, encode it to a frame, decode a frame and read it as
dicts. Field names are Kafka's ("Topics", "PartitionIndex", ...).

    m = Message.request(lib.LOGREP_API_METADATA, 9, 1, "me", {"Topics": [{"Name": "t"}]})
    frame = m.encode()
"""

from ._ffi import ffi, lib
from ._handle import Handle
from .conf import construct
from .errors import LogrepError

__all__ = ["Message", "Struct", "api_name", "api_versions", "frame_length", "API"]

#: API keys by Kafka's name: API["Produce"] == 0.
API = {}
_n = ffi.new("size_t *")
_ranges = lib.logrep_proto_api_versions(_n)
for _i in range(_n[0]):
    API[ffi.string(lib.logrep_proto_api_name(_ranges[_i].api_key)).decode()] = \
        _ranges[_i].api_key

_INTS = {lib.LOGREP_FT_BOOL, lib.LOGREP_FT_INT8, lib.LOGREP_FT_INT16, lib.LOGREP_FT_UINT16,
         lib.LOGREP_FT_INT32, lib.LOGREP_FT_UINT32, lib.LOGREP_FT_INT64}
_BYTES = {lib.LOGREP_FT_STRING, lib.LOGREP_FT_BYTES, lib.LOGREP_FT_RECORDS}


def api_name(api_key):
    p = lib.logrep_proto_api_name(api_key)
    return ffi.string(p).decode() if p != ffi.NULL else None


def api_versions():
    """{api_key: (min_version, max_version, flexible_version)}."""
    n = ffi.new("size_t *")
    r = lib.logrep_proto_api_versions(n)
    return {r[i].api_key: (r[i].min_version, r[i].max_version, r[i].flexible_version)
            for i in range(n[0])}


def frame_length(buf, max_bytes=0):
    """Length of the frame at the start of buf (prefix included), or None
    when more bytes are needed (logrep_proto_frame)."""
    n = ffi.new("size_t *")
    rc = lib.logrep_proto_frame(ffi.from_buffer(buf), len(buf), max_bytes, n)
    if rc == lib.LOGREP_ERR__AGAIN:
        return None
    if rc:
        raise LogrepError(rc, call="logrep_proto_frame")
    return n[0]


class Struct:
    """A struct of a Message (borrowed: valid while the message holds the
    same content). Read and write fields by Kafka's name."""

    __slots__ = ("_msg", "_s")

    def __init__(self, msg, s):
        self._msg = msg
        self._s = s

    def _field(self, name):
        i = lib.logrep_struct_field(self._s, name.encode())
        if i < 0:
            raise KeyError("%s has no field %s" % (self.type_name, name))
        return i

    @property
    def type_name(self):
        return ffi.string(lib.logrep_struct_type_name(self._s)).decode()

    def fields(self):
        return [ffi.string(lib.logrep_struct_field_name(self._s, i)).decode()
                for i in range(lib.logrep_struct_field_count(self._s))]

    def _bytes(self, get, *args):
        p = ffi.new("uint8_t **")
        n = ffi.new("int32_t *")
        rc = get(self._s, *args, p, n)
        if rc:
            raise LogrepError(rc, call=get.__name__)
        return None if n[0] < 0 else bytes(ffi.buffer(p[0], n[0]))

    def get(self, name):
        """A field's value: int, float, bytes (strings too; None for null),
        16-byte uuid, Struct, or a list of them for arrays."""
        i = self._field(name)
        elem = ffi.new("int *")
        t = lib.logrep_struct_field_type(self._s, i, elem)
        if t in _INTS:
            return lib.logrep_struct_int(self._s, i)
        if t == lib.LOGREP_FT_FLOAT64:
            return lib.logrep_struct_float(self._s, i)
        if t == lib.LOGREP_FT_UUID:
            return bytes(ffi.buffer(lib.logrep_struct_uuid(self._s, i), 16))
        if t in _BYTES:
            return self._bytes(lib.logrep_struct_bytes, i)
        if t == lib.LOGREP_FT_STRUCT:
            return Struct(self._msg, lib.logrep_struct_struct(self._s, i))
        if t == lib.LOGREP_FT_ARRAY:
            count = lib.logrep_struct_count(self._s, i)
            if count < 0:
                return None
            e = elem[0]
            if e == lib.LOGREP_FT_STRUCT:
                return [Struct(self._msg, lib.logrep_struct_elem(self._s, i, k))
                        for k in range(count)]
            if e in _INTS:
                return [lib.logrep_struct_elem_int(self._s, i, k) for k in range(count)]
            return [self._bytes(lib.logrep_struct_elem_bytes, i, k) for k in range(count)]
        raise TypeError("field %s has type %d" % (name, t))

    def set(self, name, value):
        """Sets a field: int/bool, float, str/bytes (copied into the
        message), None (null), a dict for a struct, a list for an array."""
        i = self._field(name)
        elem = ffi.new("int *")
        t = lib.logrep_struct_field_type(self._s, i, elem)
        s = self._s
        if value is None:
            rc = lib.logrep_struct_set_null(s, i)
        elif t in _INTS:
            rc = lib.logrep_struct_set_int(s, i, int(value))
        elif t == lib.LOGREP_FT_FLOAT64:
            rc = lib.logrep_struct_set_float(s, i, float(value))
        elif t == lib.LOGREP_FT_UUID:
            rc = lib.logrep_struct_set_uuid(s, i, ffi.from_buffer(bytes(value)))
        elif t == lib.LOGREP_FT_RECORDS:
            b = bytes(value)
            self._msg._keep.append(b)  # borrowed until encoded
            rc = lib.logrep_struct_set_records(s, i, ffi.from_buffer(b), len(b))
        elif t in _BYTES:
            b = value.encode() if isinstance(value, str) else bytes(value)
            rc = lib.logrep_struct_set_bytes_copy(s, i, ffi.from_buffer(b), len(b))
        elif t == lib.LOGREP_FT_STRUCT:
            out = ffi.new("logrep_struct **")
            rc = lib.logrep_struct_set_struct(s, i, out)
            if not rc:
                Struct(self._msg, out[0]).update(value)
        elif t == lib.LOGREP_FT_ARRAY:
            rc = lib.logrep_struct_set_count(s, i, len(value))
            for k, v in enumerate(value if not rc else ()):
                if elem[0] == lib.LOGREP_FT_STRUCT:
                    Struct(self._msg, lib.logrep_struct_elem(s, i, k)).update(v)
                elif elem[0] in _INTS:
                    rc = rc or lib.logrep_struct_set_elem_int(s, i, k, int(v))
                else:
                    b = v.encode() if isinstance(v, str) else bytes(v)
                    self._msg._keep.append(b)  # borrowed until encoded
                    rc = rc or lib.logrep_struct_set_elem_bytes(s, i, k, ffi.from_buffer(b),
                                                                len(b))
        else:
            raise TypeError("field %s has type %d" % (name, t))
        if rc:
            raise LogrepError(rc, name, "logrep_struct_set")

    __getitem__ = get
    __setitem__ = set

    def update(self, values):
        for k, v in values.items():
            self.set(k, v)

    def to_dict(self):
        out = {}
        for name in self.fields():
            i = self._field(name)
            if not lib.logrep_struct_has(self._s, i):
                continue
            v = self.get(name)
            if isinstance(v, Struct):
                v = v.to_dict()
            elif isinstance(v, list):
                v = [x.to_dict() if isinstance(x, Struct) else x for x in v]
            out[name] = v
        return out

    def __repr__(self):
        return "<Struct %s>" % self.type_name


class Message(Handle):
    """A logrep_msg: one request or response."""

    _what = "message"
    _free = staticmethod(lib.logrep_msg_free)

    def __init__(self, conf=None):
        self._h = construct(lib.logrep_msg_new, "logrep_msg **", conf)
        self._keep = []  # bytes the message borrows (decoded frame, records)

    def _check(self, rc, call):
        if rc:
            raise LogrepError(rc, ffi.string(lib.logrep_msg_errmsg(self.ptr)).decode(), call)

    @classmethod
    def request(cls, api, version, correlation_id=0, client_id="python", body=None):
        m = cls()
        m.init_request(api, version, correlation_id, client_id)
        if body:
            m.root.update(body)
        return m

    @classmethod
    def response(cls, api, version, correlation_id=0, body=None):
        m = cls()
        m.init_response(api, version, correlation_id)
        if body:
            m.root.update(body)
        return m

    def init_request(self, api, version, correlation_id=0, client_id="python"):
        self._keep = []
        cid = client_id.encode() if client_id is not None else ffi.NULL
        self._check(lib.logrep_msg_init_request(self.ptr, _api(api), version, correlation_id,
                                                cid), "logrep_msg_init_request")

    def init_response(self, api, version, correlation_id=0):
        self._keep = []
        self._check(lib.logrep_msg_init_response(self.ptr, _api(api), version, correlation_id),
                    "logrep_msg_init_response")

    def decode_request(self, frame):
        self._keep = [bytes(frame)]  # values point into the frame
        self._check(lib.logrep_msg_decode_request(self.ptr, ffi.from_buffer(self._keep[0]),
                                                  len(frame)), "logrep_msg_decode_request")
        return self

    def decode_response(self, api, version, frame):
        self._keep = [bytes(frame)]
        self._check(lib.logrep_msg_decode_response(self.ptr, _api(api), version,
                                                   ffi.from_buffer(self._keep[0]), len(frame)),
                    "logrep_msg_decode_response")
        return self

    def encode(self):
        """The frame (size prefix included) as bytes."""
        p = ffi.new("uint8_t **")
        n = ffi.new("size_t *")
        self._check(lib.logrep_msg_encode_flat(self.ptr, p, n), "logrep_msg_encode_flat")
        return bytes(ffi.buffer(p[0], n[0]))

    @property
    def root(self):
        s = lib.logrep_msg_root(self.ptr)
        if s == ffi.NULL:
            raise ValueError("the message holds no body")
        return Struct(self, s)

    @property
    def header(self):
        s = lib.logrep_msg_header(self.ptr)
        return Struct(self, s) if s != ffi.NULL else None

    @property
    def api_key(self):
        return lib.logrep_msg_api_key(self.ptr)

    @property
    def version(self):
        return lib.logrep_msg_version(self.ptr)

    @property
    def correlation_id(self):
        return lib.logrep_msg_correlation_id(self.ptr)

    @property
    def is_response(self):
        return bool(lib.logrep_msg_is_response(self.ptr))

    def to_dict(self):
        return self.root.to_dict()


def _api(api):
    return API[api] if isinstance(api, str) else api
