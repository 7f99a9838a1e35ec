# liblogrep — GNU make build.
#
#   make                 library (static + shared), tools, examples, symbol check
#   make test            deps, then every test under ASan + UBSan (Criterion),
#                        then the Python binding's (python-test)
#   make python-test     the Python binding's tests (bindings/python, pytest)
#   make check-abi       the shared library's ABI against abi/liblogrep.abi
#   make demo            deps, then the main example
#   make bench           benchmarks (optimised build), each prints ratios
#   make fuzz            libFuzzer targets, FUZZ_TIME seconds each
#   make install         PREFIX, DESTDIR, LIBDIR, INCLUDEDIR honoured
#
# Sources are picked up by wildcard: lib/<layer>/*.c, test/*.c, fuzz/fuzz_*.c,
# bench/bench_*.c, tools/logrep/*.c, examples/*.c.

.DEFAULT_GOAL := all
SHELL := /bin/bash

PREFIX     ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
LIBDIR     ?= $(EXEC_PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(EXEC_PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR    ?=

B := build

VERSION_MAJOR := $(shell sed -n 's/^\#define LOGREP_VERSION_MAJOR *\([0-9]*\).*/\1/p' include/logrep.h)
VERSION_MINOR := $(shell sed -n 's/^\#define LOGREP_VERSION_MINOR *\([0-9]*\).*/\1/p' include/logrep.h)
VERSION_PATCH := $(shell sed -n 's/^\#define LOGREP_VERSION_PATCH *\([0-9]*\).*/\1/p' include/logrep.h)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SONAME := liblogrep.so.$(VERSION_MAJOR)

PKGS := libzstd liblz4 libxxhash libisal zlib snappy
DEPS_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEPS_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS_PKG := $(shell pkg-config --cflags criterion 2>/dev/null)
TEST_LIBS_PKG   := $(shell pkg-config --libs criterion 2>/dev/null)

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wvla -Wpointer-arith -Wformat=2 -Wundef -Wno-missing-field-initializers
STD := -std=c11 -D_POSIX_C_SOURCE=200809L
INC := -Iinclude -Ilib
BASE_CFLAGS := $(STD) $(WARN) $(INC) $(DEPS_CFLAGS)
LIB_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden -DLOGREP_BUILDING $(CFLAGS)

SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# Test builds (the sanitized library the tests link, and the optimised one
# the soak links) compile the test-only hooks in: -DLOGREP_TEST, as SQLite
# keeps its behind SQLITE_TEST. The release library has none of them.
TEST_DEFS := -DLOGREP_TEST
SAN_CFLAGS := $(BASE_CFLAGS) -fvisibility=hidden -DLOGREP_BUILDING $(TEST_DEFS) -O1 -g $(SAN)

LIB_SRCS := $(sort $(wildcard lib/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o)
SAN_OBJS := $(LIB_SRCS:%.c=$(B)/asan/%.o)
SOAK_OBJS := $(LIB_SRCS:%.c=$(B)/soakobj/%.o)
GEN_HDRS := $(B)/gen/err_table.h $(B)/gen/field_names.h

TOOL_SRCS := $(sort $(wildcard tools/logrep/*.c))
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLES := $(EXAMPLE_SRCS:examples/%.c=$(B)/examples/%)
TEST_SRCS := $(sort $(wildcard test/*.c test/lib/*.c))
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRCS:fuzz/%.c=%)
BENCH_SRCS := $(sort $(wildcard bench/bench_*.c))
BENCHES := $(BENCH_SRCS:bench/%.c=$(B)/bench/%)

STATIC_LIB := $(B)/liblogrep.a
SHARED_LIB := $(B)/liblogrep.so.$(VERSION)

.PHONY: all lib tools examples test sweep demo bench fuzz soak deps install uninstall interop bench-broker \
        clean check-symbols check-layering check-header check-install check-abi abi-baseline \
        python-test

all: lib tools examples check-symbols check-layering

lib: $(STATIC_LIB) $(B)/liblogrep.so $(B)/liblogrep.pc

# Error tables are generated from the enum in the public header: one table.
$(B)/gen/err_table.h: include/logrep.h tools/gen_err_table.sh
	@mkdir -p $(@D)
	sh tools/gen_err_table.sh include/logrep.h > $@.tmp && mv $@.tmp $@

# Protocol field names are generated from the schema tables (schema.c and
# the table files by API family, schema_*.c): one list.
SCHEMA_SRCS := $(sort $(wildcard lib/proto/schema*.c))
$(B)/gen/field_names.h: $(SCHEMA_SRCS) tools/gen_field_names.sh
	@mkdir -p $(@D)
	sh tools/gen_field_names.sh $(SCHEMA_SRCS) > $@.tmp && mv $@.tmp $@

$(B)/obj/%.o: %.c $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -I$(B)/gen -MMD -MP -c $< -o $@

$(B)/asan/%.o: %.c $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -I$(B)/gen -MMD -MP -c $< -o $@

$(B)/soakobj/%.o: %.c $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(TEST_DEFS) -I$(B)/gen -MMD -MP -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(SHARED_LIB): $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined -o $@ $^ $(DEPS_LIBS) -lm

$(B)/liblogrep.so: $(SHARED_LIB)
	ln -sf liblogrep.so.$(VERSION) $(B)/$(SONAME)
	ln -sf $(SONAME) $@

$(B)/asan/liblogrep.a: $(SAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/soak/liblogrep_test.a: $(SOAK_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

$(B)/liblogrep.pc: pkgconfig/liblogrep.pc.in include/logrep.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@REQUIRES_PRIVATE@|$(PKGS)|' $< > $@

# Only logrep_* may be exported from the shared library; only logrep_* and
# lr_* may be global in the static one (hidden visibility does not protect a
# static link from collisions).
check-symbols: $(B)/liblogrep.so $(STATIC_LIB)
	@bad=$$(nm -D --defined-only $(SHARED_LIB) | awk 'NF==3 {print $$3}' | grep -v '^logrep_' || true); \
	if [ -n "$$bad" ]; then echo "unexpected exported symbols:"; echo "$$bad"; exit 1; fi
	@bad=$$(nm -g --defined-only $(STATIC_LIB) | awk 'NF==3 {print $$3}' | grep -Ev '^(logrep_|lr_)' || true); \
	if [ -n "$$bad" ]; then echo "unprefixed global symbols in liblogrep.a:"; echo "$$bad"; exit 1; fi
	@if nm $(STATIC_LIB) | grep -q lr_partition_set_bug || grep -q 'logrep\.sim\.bug' $(SHARED_LIB); then \
	  echo "test-only hooks (LOGREP_TEST) in the release library"; exit 1; fi
	@echo "symbols: ok ($$(nm -D --defined-only $(SHARED_LIB) | awk 'NF==3' | wc -l) exported, no test hooks)"

check-layering:
	@sh tools/check_layering.sh

# The shared library's ABI against the committed baseline (abi/, made by
# abidw from the DWARF of the public types): additions pass, removals and
# changes fail (tools/check_abi.sh; README.md, "ABI and soname").
ABI_BASELINE := abi/liblogrep.abi
check-abi: $(B)/liblogrep.so
	@sh tools/check_abi.sh check $(SHARED_LIB) $(ABI_BASELINE) $(B)/liblogrep.abi

abi-baseline: $(B)/liblogrep.so
	@sh tools/check_abi.sh baseline $(SHARED_LIB) $(ABI_BASELINE)


# Every public header, alone and all together, compiles as C99 (pedantic)
# and C++, so bindings and C++ hosts can include any of them.
PUBLIC_HDRS := include/logrep.h $(sort $(wildcard include/logrep/*.h))
check-header: lib
	@for h in $(PUBLIC_HDRS:include/%=%); do \
	  printf '#include <%s>\nint main(void){return 0;}\n' $$h > $(B)/hdr_one.c; \
	  $(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude -fsyntax-only $(B)/hdr_one.c || exit 1; \
	  cp $(B)/hdr_one.c $(B)/hdr_one.cc; \
	  c++ -std=c++11 -Wall -Wextra -Werror -Iinclude -fsyntax-only $(B)/hdr_one.cc || exit 1; done
	@{ for h in $(PUBLIC_HDRS:include/%=%); do printf '#include <%s>\n' $$h; done; \
	  printf 'int main(void){return logrep_version_number() ? 0 : 1;}\n'; } > $(B)/hdr_c.c
	$(CC) -std=c99 -pedantic -Wall -Werror -Iinclude $(B)/hdr_c.c -o $(B)/hdr_c $(STATIC_LIB) $(DEPS_LIBS) -lm
	@cp $(B)/hdr_c.c $(B)/hdr_cxx.cc
	c++ -Wall -Werror -Iinclude -c $(B)/hdr_cxx.cc -o $(B)/hdr_cxx.o
	@echo "headers: ok ($(words $(PUBLIC_HDRS)) public headers as C99 and C++)"

# Installs into a scratch DESTDIR, builds a program with pkg-config against
# it, runs it on the shared library, then uninstalls and checks nothing is left.
CHECK_DEST := $(CURDIR)/$(B)/check-install-root
check-install: lib tools
	@rm -rf $(CHECK_DEST)
	@$(MAKE) --no-print-directory install DESTDIR=$(CHECK_DEST) PREFIX=/usr/local >/dev/null
	@printf '#include <logrep.h>\n#include <logrep/node.h>\n#include <stdio.h>\nint main(void){return logrep_murmur2_partition("kafka",5,50) == 30 ? 0 : 1;}\n' > $(B)/check-install.c
	@PKG_CONFIG_PATH=$(CHECK_DEST)/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(CHECK_DEST) \
	  $(CC) $(B)/check-install.c $$(PKG_CONFIG_PATH=$(CHECK_DEST)/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$(CHECK_DEST) pkg-config --cflags --libs liblogrep) -o $(B)/check-install
	@LD_LIBRARY_PATH=$(CHECK_DEST)/usr/local/lib $(B)/check-install
	@$(MAKE) --no-print-directory uninstall DESTDIR=$(CHECK_DEST) PREFIX=/usr/local >/dev/null
	@left=$$(find $(CHECK_DEST) -type f -o -type l); if [ -n "$$left" ]; then echo "uninstall left: $$left"; exit 1; fi
	@echo "install: ok (pkg-config build and run against the installed shared library)"

# ---------------------------------------------------------------- tools
tools: $(B)/logrep

# The tool reads protocol fields by generated name (proto/fields.h).
$(B)/logrep: $(TOOL_SRCS) $(wildcard tools/logrep/*.h) $(GEN_HDRS) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -I$(B)/gen -Itools/logrep $(TOOL_SRCS) -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm

$(B)/asan/logrep: $(TOOL_SRCS) $(wildcard tools/logrep/*.h) $(GEN_HDRS) $(B)/asan/liblogrep.a
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) -I$(B)/gen -Itools/logrep $(TOOL_SRCS) -o $@ $(B)/asan/liblogrep.a $(DEPS_LIBS) -lm

# ---------------------------------------------------------------- examples
examples: $(EXAMPLES) $(B)/logrep-broker $(B)/examples/minimal-broker $(B)/examples/appliance

# The minimal broker (examples/minimal/): the teaching copy to start from.
# Its socket helpers (net.c: numeric addresses, non-blocking connects, the
# resolver thread) are shared with the tuned broker below.
MINIMAL_SRCS := examples/minimal/minimal_broker.c examples/minimal/net.c
NET_SRCS := examples/minimal/net.c

$(B)/examples/minimal-broker: $(MINIMAL_SRCS) examples/minimal/net.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) -Iexamples/minimal $(MINIMAL_SRCS) -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm -pthread

# The tuned example broker: every file in examples/broker/ is one program,
# with net.c from examples/minimal/.
BROKER_SRCS := $(sort $(wildcard examples/broker/*.c)) $(NET_SRCS)
BROKER_HDRS := $(wildcard examples/broker/*.h) examples/minimal/net.h

$(B)/logrep-broker: $(BROKER_SRCS) $(BROKER_HDRS) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) -Iexamples/broker -Iexamples/minimal $(BROKER_SRCS) -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm -pthread

$(B)/examples/%: examples/%.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $< -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm

# The appliance (examples/appliance/): three replicas of a partition in
# threads of one program; `make test` runs its sanitized build once.
APPLIANCE_SRCS := $(sort $(wildcard examples/appliance/*.c))
APPLIANCE_DEPS := $(APPLIANCE_SRCS) $(wildcard examples/appliance/*.h)

$(B)/examples/appliance: $(APPLIANCE_DEPS) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -pthread $(APPLIANCE_SRCS) -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm

$(B)/asan/examples/appliance: $(APPLIANCE_DEPS) $(B)/asan/liblogrep.a
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) -pthread $(APPLIANCE_SRCS) -o $@ $(B)/asan/liblogrep.a $(DEPS_LIBS) -lm

# The cluster demo (librdkafka): examples/broker/demo/.
RDKAFKA_LIBS := $(shell pkg-config --libs rdkafka 2>/dev/null || echo -lrdkafka)
DEMO_SRCS := $(sort $(wildcard examples/broker/demo/*.c))
DEMO_COMMON := $(filter-out examples/broker/demo/demo.c,$(DEMO_SRCS))

$(B)/examples/cluster-demo: $(DEMO_SRCS) $(wildcard examples/broker/demo/*.h) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) -Iexamples/broker/demo $(DEMO_SRCS) -o $@ $(STATIC_LIB) $(RDKAFKA_LIBS) $(DEPS_LIBS) -lm

# The interop suite (test/interop/): real Kafka clients against a 3-node
# cluster of logrep-broker processes, then the restart suite (kill -9 and
# SIGTERM of one node and of whole clusters), the consumer group suite
# (kcat -G, librdkafka members and admin calls, kafkajs, kill -9 of the
# coordinator's node), the full-disk suite (one broker on a small tmpfs),
# the descriptor suites (out of descriptors for sockets; a 9,999-partition
# topic under a lowered RLIMIT_NOFILE), then `logrep groups` against kcat
# -G consumer groups (groups_tool.sh), `logrep quorum` against three
# voters and the loss of their leader (quorum_tool.sh), and last the minimal broker
# (minimal.sh: 1 and 3 nodes of examples/minimal-broker under kcat).
# `make test INTEROP=0` skips it.
$(B)/test/rdk_check: test/interop/rdk_check.c $(DEMO_COMMON) $(wildcard examples/broker/demo/*.h) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) -Iexamples/broker/demo test/interop/rdk_check.c $(DEMO_COMMON) -o $@ $(STATIC_LIB) $(RDKAFKA_LIBS) $(DEPS_LIBS) -lm

# librdkafka's AlterConfigs / DescribeConfigs admin calls (topic_configs.sh).
$(B)/test/rdk_alter: test/interop/rdk_alter.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) test/interop/rdk_alter.c -o $@ $(RDKAFKA_LIBS)

# librdkafka group members and the group admin calls (groups.sh).
$(B)/test/rdk_group: test/interop/rdk_group.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) test/interop/rdk_group.c -o $@ $(RDKAFKA_LIBS)

$(B)/test/rdk_groups_admin: test/interop/rdk_groups_admin.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) test/interop/rdk_groups_admin.c -o $@ $(RDKAFKA_LIBS)

# bench-broker: this cluster against librdkafka's mock cluster, same run.
$(B)/bench/bench_broker: $(wildcard bench/broker/*.c bench/broker/*.h) $(DEMO_COMMON) $(wildcard examples/broker/demo/*.h) $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE $(CFLAGS) -Iexamples/broker/demo $(wildcard bench/broker/*.c) $(DEMO_COMMON) -o $@ $(STATIC_LIB) $(RDKAFKA_LIBS) $(DEPS_LIBS) -lm

bench-broker: all $(B)/bench/bench_broker
	$(B)/bench/bench_broker $(B)/logrep-broker

# The full-disk suite's fallback where no tmpfs can be mounted (tests only).
$(B)/test/enospc_shim.so: test/interop/enospc_shim.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -O2 -fPIC -shared $< -o $@ -ldl

interop: all $(B)/test/rdk_check $(B)/test/rdk_alter $(B)/test/rdk_group $(B)/test/rdk_groups_admin \
         $(B)/test/enospc_shim.so
	@st=0; bash test/interop/run.sh $(B) || st=1; bash test/interop/restart.sh $(B) || st=1; \
	  bash test/interop/groups.sh $(B) || st=1; \
	  bash test/interop/disk_full.sh $(B) || st=1; bash test/interop/descriptors.sh $(B) || st=1; \
	  bash test/interop/partitions.sh $(B) || st=1; bash test/interop/groups_tool.sh $(B) || st=1; \
	  bash test/interop/quorum_tool.sh $(B) || st=1; \
	  bash test/interop/minimal.sh $(B) || st=1; exit $$st

# ---------------------------------------------------------------- tests
deps:
	@sh tools/deps.sh

# The example broker's storage wrapper is tested with the library (it is
# the one piece of the broker that touches the bytes on disk).
$(B)/test/broker_storage.o: examples/broker/storage.c examples/broker/broker.h
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -D_GNU_SOURCE -Iexamples/broker -O1 -g $(SAN) -c $< -o $@

# The pure parts of the tool (no sockets, no main) are linked in too.
TOOL_TEST_SRCS := tools/logrep/groups_fmt.c tools/logrep/quorum_fmt.c

# Every test checks for leaks at its end, in its worker (test/lib/leakcheck.c
# wraps these two Criterion entry points; docs/testing.md, "Leaks").
TEST_WRAP := -Wl,--wrap=criterion_internal_test_main \
             -Wl,--wrap=criterion_internal_test_teardown

$(B)/test/logrep_test: $(TEST_SRCS) $(TOOL_TEST_SRCS) $(wildcard test/*.h test/lib/*.h tools/logrep/*.h) $(B)/test/broker_storage.o $(B)/asan/liblogrep.a
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(TEST_DEFS) -I$(B)/gen -Itest -Iexamples/broker -Itools/logrep $(TEST_CFLAGS_PKG) -O1 -g $(SAN) \
	    -DLOGREP_SRCDIR='"$(CURDIR)"' -DLOGREP_BUILDDIR='"$(CURDIR)/$(B)"' \
	    $(TEST_SRCS) $(TOOL_TEST_SRCS) $(B)/test/broker_storage.o -o $@ $(B)/asan/liblogrep.a $(TEST_WRAP) $(TEST_LIBS_PKG) $(DEPS_LIBS) -lm

# Corpus replay: each fuzz target linked with a plain main() under the sanitizers.
$(B)/test/replay_%: fuzz/%.c fuzz/replay_main.c $(B)/asan/liblogrep.a
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -I$(B)/gen -O1 -g $(SAN) $< fuzz/replay_main.c -o $@ $(B)/asan/liblogrep.a $(DEPS_LIBS) -lm

REPLAYS := $(FUZZ_NAMES:%=$(B)/test/replay_%)

TEST_JOBS ?= 2
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS ?= suppressions=$(CURDIR)/test/lsan.supp

test: deps
	@$(MAKE) --no-print-directory all check-header check-install check-abi
	@$(MAKE) --no-print-directory $(B)/test/logrep_test $(REPLAYS) $(B)/asan/logrep \
	    $(B)/asan/examples/appliance
	@for t in $(FUZZ_NAMES); do \
	  if [ -d fuzz/corpus/$$t ]; then \
	    $(B)/test/replay_$$t fuzz/corpus/$$t || exit 1; fi; done
	@st=0; $(B)/test/logrep_test --jobs $(TEST_JOBS) $(TEST_ARGS) || st=1; \
	$(B)/asan/examples/appliance || st=1; \
	$(MAKE) --no-print-directory python-test || st=1; \
	if [ "$(INTEROP)" != 0 ]; then $(MAKE) --no-print-directory interop || st=1; fi; \
	exit $$st

# The Python binding (bindings/python): cffi in ABI mode over this tree's
# headers and the release shared library. Debian's interpreter, which has
# python3-cffi and python3-pytest (tools/deps.sh).
python-test: lib
	LOGREP_LIBRARY=$(CURDIR)/$(B)/liblogrep.so LOGREP_INCLUDE_DIR=$(CURDIR)/include \
	  /usr/bin/python3 -m pytest -q bindings/python/tests

# Every fault sweep at every call (make test runs every few calls of the
# larger ones; docs/testing.md).
sweep: deps
	@$(MAKE) --no-print-directory $(B)/test/logrep_test
	LOGREP_SWEEP_STRIDE=1 $(B)/test/logrep_test --jobs $(TEST_JOBS) --filter 'sweep_*/*'

# ---------------------------------------------------------------- demo
demo: deps
	@$(MAKE) --no-print-directory all $(B)/examples/cluster-demo
	$(B)/examples/cluster-demo --broker $(B)/logrep-broker

# ---------------------------------------------------------------- bench
BENCH_CFLAGS := $(BASE_CFLAGS) -I$(B)/gen -O2 -g -march=native -DNDEBUG

$(B)/bench/%: bench/%.c bench/bench.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm -lpthread

# bench_groups also links its cluster (bench/groups_cluster.c): a shared
# source is not named bench_*.c, so it is no benchmark of its own.
$(B)/bench/bench_groups: bench/bench_groups.c bench/groups_cluster.c bench/groups_cluster.h bench/bench.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) bench/bench_groups.c bench/groups_cluster.c -o $@ $(STATIC_LIB) $(DEPS_LIBS) -lm -lpthread

bench: all $(BENCHES)
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

# ---------------------------------------------------------------- soak
# Random simulation seeds, optimised and without sanitizers:
#   make soak SEEDS=N [LOGREP_SIM_BUG=hw-ignores-isr|no-truncate]
#   LOGREP_SIM_SEED=S make soak      replays seed S with its trace
# Ends with the line "N passed, M failed" (docs/simulator.md).
SEEDS ?= 200

$(B)/soak/sim_soak: test/test_sim_soak.c $(B)/soak/liblogrep_test.a
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(TEST_DEFS) -DLOGREP_SIM_SOAK_MAIN $< -o $@ $(B)/soak/liblogrep_test.a $(DEPS_LIBS) -lm

soak: $(B)/soak/sim_soak
	@LOGREP_SIM_BUG='$(LOGREP_SIM_BUG)' $(B)/soak/sim_soak $(SEEDS)

# ---------------------------------------------------------------- fuzz
FUZZ_TIME ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS := $(STD) $(INC) -I$(B)/gen $(DEPS_CFLAGS) -g -O1 -DLOGREP_BUILDING \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJS := $(LIB_SRCS:%.c=$(B)/fuzzobj/%.o)

$(B)/fuzzobj/%.o: %.c $(GEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(B)/fuzz/liblogrep.a: $(FUZZ_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

$(B)/fuzz/%: fuzz/%.c $(B)/fuzz/liblogrep.a
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $< -o $@ $(B)/fuzz/liblogrep.a $(DEPS_LIBS) -lm

fuzz: deps $(FUZZ_NAMES:%=$(B)/fuzz/%)
	@for t in $(FUZZ_NAMES); do \
	  mkdir -p $(B)/fuzz/corpus-$$t; \
	  echo "== fuzz $$t for $(FUZZ_TIME)s"; \
	  $(B)/fuzz/$$t -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
	     $(B)/fuzz/corpus-$$t fuzz/corpus/$$t || exit 1; done

# ---------------------------------------------------------------- install
install: lib
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/logrep $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf liblogrep.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/liblogrep.so
	install -m 644 include/logrep.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(wildcard include/logrep/*.h) $(DESTDIR)$(INCLUDEDIR)/logrep/
	install -m 644 $(B)/liblogrep.pc $(DESTDIR)$(PKGCONFIGDIR)/
	@if [ -x $(B)/logrep ]; then install -m 755 $(B)/logrep $(DESTDIR)$(BINDIR)/; fi

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/liblogrep.a $(DESTDIR)$(LIBDIR)/liblogrep.so \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/liblogrep.so.$(VERSION) \
	      $(DESTDIR)$(INCLUDEDIR)/logrep.h $(DESTDIR)$(PKGCONFIGDIR)/liblogrep.pc \
	      $(DESTDIR)$(BINDIR)/logrep
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/logrep/,$(notdir $(wildcard include/logrep/*.h)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/logrep 2>/dev/null

clean:
	rm -rf $(B)

-include $(LIB_OBJS:.o=.d) $(SAN_OBJS:.o=.d) $(SOAK_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)
