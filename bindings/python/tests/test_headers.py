"""Every public header is cffi cdef input: loaded with its dependencies into
a fresh FFI, the cdef succeeds and declares what the header declares."""

import os
import re
import shutil
import subprocess

import cffi
import pytest

from logrep import _headers
from logrep._ffi import find_include_dir

INCLUDE = find_include_dir()

# A sample of what each header declares: functions, types, enum constants.
SAMPLES = {
    "logrep.h": {
        "functions": ["logrep_version_string", "logrep_err_name", "logrep_conf_set",
                      "logrep_murmur2_partition", "logrep_batch_builder_add",
                      "logrep_batch_reader_next", "logrep_crc32c"],
        "types": ["logrep_batch_header", "logrep_record", "logrep_header", "logrep_allocator",
                  "logrep_seg", "logrep_control"],
        "constants": {"LOGREP_ERR__CORRUPT": -105, "LOGREP_ERR_NOT_LEADER_OR_FOLLOWER": 6,
                      "LOGREP_COMPRESSION_ZSTD": 4, "LOGREP_BATCH_HEADER_SIZE": 61,
                      "LOGREP_LEVEL_WARN": 4, "LOGREP_VERSION_MAJOR": 0},
    },
    "logrep/storage.h": {
        "functions": ["logrep_storage_posix_new", "logrep_storage_free",
                      "logrep_storage_crash_simulate"],
        "types": ["logrep_storage", "logrep_storage_fd_stats"],
        "constants": {"LOGREP_STORAGE_VERSION": 1, "LOGREP_OPEN_EXCL": 4,
                      "LOGREP_CRASH_KEEP_ALL": 2},
    },
    "logrep/log.h": {
        "functions": ["logrep_log_open", "logrep_log_append_leader", "logrep_log_read",
                      "logrep_log_truncate", "logrep_log_recovery_info", "logrep_log_clean"],
        "types": ["logrep_log_recovery", "logrep_log_append_info", "logrep_log_slice",
                  "logrep_producer_entry"],
        "constants": {"LOGREP_OFFSET_EARLIEST": -2, "LOGREP_CLEAN_FORCE": 1},
    },
    "logrep/proto.h": {
        "functions": ["logrep_proto_frame", "logrep_msg_new", "logrep_msg_encode",
                      "logrep_struct_field", "logrep_struct_set_records"],
        "types": ["logrep_api_range"],
        "constants": {"LOGREP_API_PRODUCE": 0, "LOGREP_API_CREATE_TOPICS": 19,
                      "LOGREP_FT_ARRAY": 14},
    },
    "logrep/node.h": {
        "functions": ["logrep_node_new", "logrep_node_tick", "logrep_node_request",
                      "logrep_node_free", "logrep_node_describe"],
        "types": ["logrep_transport", "logrep_node_partition_info", "logrep_node_stats"],
        "constants": {"LOGREP_TRANSPORT_VERSION": 1},
    },
    "logrep/inproc.h": {
        "functions": ["logrep_node_poll", "logrep_node_produce", "logrep_node_fetch",
                      "logrep_node_list_offsets", "logrep_node_create_topic",
                      "logrep_node_delete_topic"],
        "types": ["logrep_node_event"],
        "constants": {"LOGREP_NODE_EV_PRODUCE": 2, "LOGREP_NODE_EV_DELETE_TOPIC": 6},
    },
    "logrep/groups.h": {
        "functions": ["logrep_node_commit_offsets", "logrep_node_fetch_offsets",
                      "logrep_node_describe_group", "logrep_node_group_lags"],
        "types": ["logrep_group_offset", "logrep_group_info", "logrep_group_lag"],
        "constants": {},
    },
    "logrep/partition.h": {
        "functions": ["logrep_partition_new", "logrep_partition_apply",
                      "logrep_partition_produce", "logrep_partition_fetch"],
        "types": ["logrep_leadership", "logrep_produce_result", "logrep_fetch_request"],
        "constants": {"LOGREP_PARTITION_MAX_REPLICAS": 16, "LOGREP_ROLE_FOLLOWER": 2},
    },
    "logrep/sim.h": {
        "functions": ["logrep_sim_new", "logrep_sim_run", "logrep_sim_kill",
                      "logrep_sim_trace_dump"],
        "types": ["logrep_sim_conf", "logrep_sim_stats", "logrep_sim_part"],
        "constants": {"LOGREP_SIM_CRASH_DISK": 3},
    },
}


def test_every_header_is_listed():
    on_disk = ["logrep.h"] + sorted(
        "logrep/" + f for f in os.listdir(os.path.join(INCLUDE, "logrep")) if f.endswith(".h"))
    assert sorted(on_disk) == sorted(_headers.HEADERS)
    assert sorted(SAMPLES) == sorted(_headers.HEADERS)


def _declarations(ffi):
    """What the cdef declared, as cffi's parser keeps it: "function f",
    "typedef t", "struct s" ... (cffi's internal table, read-only)."""
    return ffi._parser._declarations


@pytest.mark.parametrize("name", _headers.HEADERS)
def test_header_parses_as_cdef(name):
    ffi = cffi.FFI()
    ffi.cdef(_headers.cdef_for([name], INCLUDE))  # pycparser parses it
    decls = _declarations(ffi)
    sample = SAMPLES[name]
    for fn in sample["functions"]:
        assert "function " + fn in decls, fn
    for ty in sample["types"]:
        assert "typedef " + ty in decls, ty
        assert ffi.sizeof(ty) > 0, ty
    consts = ffi.dlopen(None)  # constants need no symbol from any library
    for const, value in sample["constants"].items():
        assert getattr(consts, const) == value, const


def test_all_headers_together_and_library_symbols():
    """Everything in one FFI, as the package loads it; the functions the
    library defines resolve."""
    from logrep import lib

    ffi = cffi.FFI()
    ffi.cdef(_headers.cdef_for(list(_headers.HEADERS), INCLUDE))
    for name in ("logrep.h", "logrep/storage.h", "logrep/log.h", "logrep/proto.h",
                 "logrep/node.h"):
        for fn in SAMPLES[name]["functions"]:
            assert getattr(lib, fn) is not None, fn


def test_dependencies_follow_includes():
    assert _headers.load("logrep.h", INCLUDE).deps == []
    deps = _headers.load("logrep/inproc.h", INCLUDE).deps
    assert set(deps) == {"logrep.h", "logrep/log.h", "logrep/node.h"}
    order = [h.name for h in _headers.closure(["logrep/groups.h"], INCLUDE)]
    assert order.index("logrep.h") < order.index("logrep/node.h") < order.index("logrep/groups.h")


def test_macros():
    h = _headers.load("logrep.h", INCLUDE)
    # Integer macros kept; the version number folded from its parts.
    assert h.constants["LOGREP_VERSION_MAJOR"] == 0
    assert h.constants["LOGREP_VERSION_NUMBER"] == (
        h.constants["LOGREP_VERSION_MAJOR"] * 10000 + h.constants["LOGREP_VERSION_MINOR"] * 100
        + h.constants["LOGREP_VERSION_PATCH"])
    # The guard and the visibility macro are dropped, and so is the word.
    assert set(h.dropped) == {"LOGREP_H", "LOGREP_API"}
    assert "LOGREP_API" not in h.cdef
    assert "__cplusplus" not in h.cdef and "extern" not in h.cdef
    assert "#include" not in h.cdef


def test_loader_rules():
    text = """
    /* a comment with #define X 1 inside */
    #ifndef G_H
    #define G_H
    #include <stdint.h>
    #include <logrep.h>
    #ifdef __cplusplus
    extern "C" {
    #endif
    #define A 0x10u
    #define B (A * 2 + 1) // folded
    #define S "text"
    #if defined(_WIN32) && defined(X)
    #  define LOGREP_API __declspec(dllexport)
    #elif defined(__GNUC__) && __GNUC__ >= 4
    #  define LOGREP_API __attribute__((visibility("default")))
    #else
    #  define LOGREP_API
    #endif
    typedef struct s { int a[A]; int b; } s;
    LOGREP_API int f(const char *p,
                     int n);
    #ifdef __cplusplus
    }
    #endif
    #endif
    """
    h = _headers.parse(text)
    assert h.constants == {"A": 16, "B": 33}
    assert h.deps == ["logrep.h"]
    assert set(h.dropped) == {"G_H", "S", "LOGREP_API"}
    ffi = cffi.FFI()
    ffi.cdef(h.cdef)
    assert ffi.sizeof("s") == 17 * ffi.sizeof("int")
    assert ffi.dlopen(None).B == 33


@pytest.mark.parametrize("text,why", [
    ("#pragma once\n", "#pragma"),
    ("#undef X\n", "#undef"),
    ("#define F(x) (x)\n", "function-like"),
    ("#define T int\nT f(void);\n", "used in a declaration"),
    ("#if 1\nint x;\n", "unterminated"),
    ("#include <stdio.h>\n", "unknown to the loader"),
])
def test_loader_refuses(text, why):
    with pytest.raises(_headers.HeaderError, match=why):
        _headers.parse(text)


def _cc():
    return shutil.which(os.environ.get("CC", "cc"))


@pytest.mark.skipif(not _cc(), reason="no C compiler to compare layouts with")
def test_struct_layouts_match_the_compiler(tmp_path):
    """cffi's ABI-mode layout of every public struct equals the C
    compiler's (size and every field's offset)."""
    ffi = cffi.FFI()
    ffi.cdef(_headers.cdef_for(list(_headers.HEADERS), INCLUDE))
    structs = []
    for name in _headers.HEADERS:
        for m in re.finditer(r"typedef struct (\w+) \{", _headers.load(name, INCLUDE).cdef):
            structs.append(m.group(1))
    assert len(structs) > 20
    lines = ["#include <stddef.h>", "#include <stdio.h>"]
    lines += ["#include <%s>" % n for n in _headers.HEADERS]
    lines.append("int main(void) {")
    expect = []
    for s in structs:
        lines.append('printf("%%zu\\n", sizeof(%s));' % s)
        expect.append(ffi.sizeof(s))
        for field, f in ffi.typeof(s).fields:
            lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (s, field))
            expect.append(f.offset)
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([_cc(), "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True)
    got = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True,
                                          check=True).stdout.split()]
    assert got == expect


# Headers whose functions are declared ahead of the library: their missing
# symbols are reported as a skip, not a failure.
NOT_YET_IMPLEMENTED = {"logrep/partition.h"}


@pytest.mark.parametrize("name", _headers.HEADERS)
def test_every_declared_function_is_in_the_library(name):
    """Each function a header declares resolves in the library opened
    (ABI mode would otherwise fail only when it is first called)."""
    from logrep import lib

    ffi = cffi.FFI()
    ffi.cdef(_headers.cdef_for([name], INCLUDE))
    deps = {h.name for h in _headers.closure([name], INCLUDE)} - {name}
    dep_ffi = cffi.FFI()
    if deps:
        dep_ffi.cdef(_headers.cdef_for(sorted(deps), INCLUDE))
    inherited = set(_declarations(dep_ffi))
    missing = []
    for key in _declarations(ffi):
        if key.startswith("function ") and key not in inherited:
            fn = key.split(" ", 1)[1]
            try:
                getattr(lib, fn)
            except AttributeError:
                missing.append(fn)
    if missing and name in NOT_YET_IMPLEMENTED:
        pytest.skip("%s: %d functions not in this library yet" % (name, len(missing)))
    assert not missing
