"""liblogrep for Python: Kafka's replicated log as an embeddable library.

A binding in cffi's ABI mode: the declarations come from liblogrep's own
public headers (read by logrep._headers), the library is opened with
dlopen, and nothing is compiled. See README.md for where the headers and
the library are looked for.

    from logrep import build_batch, read_batch, PartitionLog
"""

from ._ffi import constants, ffi, include_dir, lib, library_path, LoadError
from .batch import (
    COMPRESSION,
    BatchBuilder,
    BatchHeader,
    BatchReader,
    Partitioner,
    Record,
    build_batch,
    compression_codec,
    compression_name,
    crc32c,
    iter_batches,
    iter_records,
    murmur2,
    murmur2_partition,
    parse_header,
    read_batch,
    stamp,
    verify,
)
from .conf import Conf, properties
from .errors import Err, LogrepError, check, err_name, err_str
from .log import INT64_MAX, AppendInfo, PartitionLog, RecoveryInfo, Slice, Storage

__all__ = [
    "ffi", "lib", "include_dir", "library_path", "constants", "LoadError",
    "version", "version_number",
    "Err", "LogrepError", "check", "err_name", "err_str",
    "Conf", "properties",
    "COMPRESSION", "BatchBuilder", "BatchHeader", "BatchReader", "Partitioner", "Record",
    "build_batch", "compression_codec", "compression_name", "crc32c", "iter_batches",
    "iter_records", "murmur2", "murmur2_partition", "parse_header", "read_batch", "stamp",
    "verify",
    "INT64_MAX", "AppendInfo", "PartitionLog", "RecoveryInfo", "Slice", "Storage",
]


def version():
    """The linked library's version, "MAJOR.MINOR.PATCH"."""
    return ffi.string(lib.logrep_version_string()).decode()


def version_number():
    """LOGREP_VERSION_NUMBER of the linked library."""
    return lib.logrep_version_number()


__version__ = version()
