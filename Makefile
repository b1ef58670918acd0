# mmprof: one non-recursive GNU makefile.
#
#   make                 build ./mmprof (installs missing Debian packages first)
#   make check           build and run every test (TAP under prove)
#   make demo            record the bundled THP workload off/on and diff it
#   make bench           side-by-side benchmarks against perf
#   make verdict-corpus CORPUS=dir   diff's verdicts on real recordings (tests/bench/verdict-corpus.py)
#   make fuzz            run each libFuzzer harness FUZZ_SECONDS (60) [clang]
#   make deps            check (and install) what every target needs
#   make install         PREFIX=/usr/local DESTDIR= ; binary, man pages, bash completion
#   make V=1             show commands
#   make SANITIZE=address,undefined   sanitizer build (in build-san/)
#   make BUILD=dir       build in dir/ (default build/; fuzz in dir-fuzz/)
#   LIBPERF_KERNEL_TREE=/path/to/linux   build libperf from that tree
#
# Sources are found by wildcard: a new src/<module>/*.c, tests/unit/test-*.c,
# tests/integration/t*.sh or tests/workloads/*.c needs no edit here.

PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
COMPDIR   ?= $(PREFIX)/share/bash-completion/completions
CC        ?= cc
SANITIZE  ?=
VERSION   := 0.1.0

ifeq ($(SANITIZE),)
BUILD     ?= build
else
BUILD     ?= build-san
endif
# the fuzz build's folder, beside BUILD's (build-fuzz/ by default)
FUZZ_BUILD ?= $(patsubst %/,%,$(BUILD))-fuzz

ifeq ($(V),1)
Q :=
else
Q := @
endif

# Dependencies are a step of the build, not of parsing: each set of
# src/scripts/deps.sh (build, tests, demo, fuzz, bench) is probed once per
# build folder by the first target that needs it, a stamp records success,
# and missing Debian packages are installed then (or named, and make stops).
# A plain `make` needs only the build set; check, demo, fuzz and bench add
# their own.  `make deps` probes every set at once.
DEPS_SETS  := build tests demo fuzz bench
DEPS_BUILD := $(BUILD)/.deps-build

# libperf: the system's when pkg-config knows it, else our own static build.
# That build is shared by every build folder (BUILD, build-san, the fuzz
# build) rather than following BUILD: it depends on none of our flags
# (build-libperf.sh drops CFLAGS and SANITIZE does not reach it), it is most
# of a fresh build's time, and once built it is only read.  Override
# LIBPERF_DIR to keep it elsewhere.  (Probed while parsing: where pkg-config
# is not installed yet we take our own build, which is Debian's case anyway.)
ifeq ($(shell pkg-config --exists libperf 2>/dev/null && echo y),y)
LIBPERF_CFLAGS := $(shell pkg-config --cflags libperf)
LIBPERF_LIBS   := $(shell pkg-config --libs libperf)
LIBPERF_DEP    :=
else
LIBPERF_DIR    ?= build/libperf
LIBPERF_CFLAGS := -I$(LIBPERF_DIR)/include
LIBPERF_LIBS   := $(LIBPERF_DIR)/lib/libperf.a $(LIBPERF_DIR)/lib/libapi.a
LIBPERF_DEP    := $(LIBPERF_DIR)/lib/libperf.a
endif

# The modules' flags are asked of pkg-config on first use, i.e. by the first
# compile or link, which runs after the build set's step has installed them
# (hence `=` here and in every variable built on these).
# libpq is compiled against but not linked: the results store opens it
# when a PostgreSQL store is used (src/store/pg.c says why).
PKGS        := libelf libdw libtraceevent sqlite3 zlib
PKG_CFLAGS   = $(eval PKG_CFLAGS := $$(shell pkg-config --cflags $$(PKGS) libpq 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS     = $(eval PKG_LIBS := $$(shell pkg-config --libs $$(PKGS) 2>/dev/null))$(PKG_LIBS)

WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wold-style-definition -Wpointer-arith \
	-Wno-unused-parameter -Wvla -Wundef
OPT      ?= -O2 -g
# banned.h (strcpy, sprintf, ... as compile errors) is forced into every
# file of ours with -include rather than #included by each: a new file
# cannot forget it, and no common header has to be first everywhere.
BANNED   := -include mmprof/banned.h
BASE_CFLAGS = -std=gnu11 $(OPT) $(WARNINGS) -fno-omit-frame-pointer \
	-D_GNU_SOURCE -DMMPROF_VERSION='"$(VERSION)"' -DMMPROF_SOURCE_MAN='"$(abspath man)"' -Iinclude \
	$(BANNED) $(LIBPERF_CFLAGS) $(PKG_CFLAGS) -MMD -MP
ifneq ($(SANITIZE),)
BASE_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
SAN_LDFLAGS := -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS   = $(BASE_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(SAN_LDFLAGS) $(LDFLAGS)
LIBS         = $(LIBPERF_LIBS) $(PKG_LIBS) -liberty -lm -lpthread

MAIN_SRC := src/mmprof.c
LIB_SRC  := $(filter-out $(MAIN_SRC),$(sort $(wildcard src/*.c src/*/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
LIBMMPROF := $(BUILD)/libmmprof.a

UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
INTEG    := $(sort $(wildcard tests/integration/t*.sh))

# Bundled workloads: frame pointers on and hot functions kept out of line,
# so that tests can expect them by name in a profile.
WL_SRC    := $(sort $(wildcard tests/workloads/*.c))
WL_BIN    := $(WL_SRC:tests/workloads/%.c=$(BUILD)/workloads/%)
WL_CFLAGS := -std=gnu11 -O2 -g -fno-omit-frame-pointer -D_GNU_SOURCE -Wall -Wextra

MAN_SRC  := $(sort $(wildcard man/*.1))

.PHONY: all check clean distclean install demo bench verdict-corpus help workloads fuzz deps FORCE
.DEFAULT_GOAL := all

all: mmprof workloads

mmprof: $(BUILD)/mmprof

$(BUILD)/mmprof: $(MAIN_OBJ) $(LIBMMPROF)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(MAIN_OBJ) $(LIBMMPROF) $(LIBS)
	$(Q)$(if $(filter build,$(BUILD)),ln -sf $@ mmprof)

$(LIBMMPROF): $(LIB_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c $(LIBPERF_DEP) | $(DEPS_BUILD)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBMMPROF) tests/unit/tap.h
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(LIBMMPROF) $(LIBS)

# The suite's hostile-file check (t831) turns fuzz seeds into files with it.
SEED_TOOL := $(BUILD)/tests/seed-to-data

$(SEED_TOOL): tests/fuzz/seed-to-data.c tests/fuzz/datafile-seed.h tests/fuzz/chainarr.h $(LIBMMPROF)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIBMMPROF) $(LIBS)

workloads: $(WL_BIN)

$(BUILD)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h) | $(DEPS_BUILD)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -lpthread -lm

$(LIBPERF_DIR)/lib/libperf.a: | $(DEPS_BUILD)
	@echo "  LIBPERF $(LIBPERF_DIR)"
	$(Q)src/scripts/build-libperf.sh $(LIBPERF_DIR)

# The dependency steps: one stamp per set and build folder.  Every set
# waits for the build set, so that two apt-get never run at once.
$(DEPS_BUILD):
	@mkdir -p $(dir $@)
	$(Q)MMPROF_OWN_LIBPERF=$(if $(LIBPERF_DEP),1,0) src/scripts/deps.sh build
	$(Q)touch $@

DEPS_MORE := $(foreach s,$(filter-out build,$(DEPS_SETS)),$(BUILD)/.deps-$(s))
$(DEPS_MORE): $(BUILD)/.deps-%: | $(DEPS_BUILD)
	$(Q)src/scripts/deps.sh $*
	$(Q)touch $@

deps:
	$(Q)MMPROF_OWN_LIBPERF=$(if $(LIBPERF_DEP),1,0) src/scripts/deps.sh $(DEPS_SETS)

# Integration tests find the binaries through these.
export MMPROF_BUILD := $(abspath $(BUILD))
export MMPROF := $(abspath $(BUILD)/mmprof)
# Tests that cannot use a sanitizer build (valgrind) or whose memory bounds
# ASan's shadow and quarantine would break need to know.
export MMPROF_SANITIZE := $(SANITIZE)
# valgrind cannot run an ASan binary: t803 runs a plain build of the tree
# instead, this one or, under SANITIZE, one beside it (made if missing).
ifeq ($(SANITIZE),)
PLAIN_BUILD := $(BUILD)
else
PLAIN_BUILD := $(if $(filter build-san,$(BUILD)),build,$(patsubst %/,%,$(BUILD))-plain)
endif
export MMPROF_PLAIN_BUILD := $(abspath $(PLAIN_BUILD))

check: $(BUILD)/mmprof $(UNIT_BIN) $(WL_BIN) $(SEED_TOOL) | $(BUILD)/.deps-tests
	@echo "  PROVE   unit and integration tests"
	$(Q)rm -rf $(BUILD)/test-logs
	$(Q)export TEST_LOGS=$(abspath $(BUILD))/test-logs; \
		prove -j2 --exec tests/run-test.sh $(PROVE_FLAGS) $(UNIT_BIN) $(INTEG) || \
		{ tests/run-test.sh --show-failed; exit 1; }

demo: $(BUILD)/mmprof $(WL_BIN) | $(BUILD)/.deps-demo
	$(Q)src/scripts/demo.sh

# Benchmark drivers (tests/bench/*.c), built only for make bench.
BENCH_BIN := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(wildcard tests/bench/*.c))

$(BUILD)/bench/%: tests/bench/%.c $(LIBMMPROF)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -fno-omit-frame-pointer $(ALL_LDFLAGS) -o $@ $< $(LIBMMPROF) $(LIBS)

bench: $(BUILD)/mmprof $(WL_BIN) $(BENCH_BIN) | $(BUILD)/.deps-bench
	$(Q)BUILD=$(BUILD) src/scripts/bench.sh

# The diff's verdicts on recorded pairs (issue 32 point 5): CORPUS is a
# folder of pair folders (a-*.data and b-*.data, or base*.data and
# new*.data); VERDICT_FLAGS passes options (-n, --aa, --sizes, --details).
# Markdown tables on stdout; figures, no pass/fail.
CORPUS ?=
verdict-corpus: $(BUILD)/mmprof
	$(Q)test -n "$(CORPUS)" || { echo "mmprof: make verdict-corpus needs CORPUS=folder of recorded pairs" >&2; exit 2; }
	$(Q)MMPROF=$(abspath $(BUILD)/mmprof) tests/bench/verdict-corpus.py $(VERDICT_FLAGS) $(sort $(dir $(wildcard $(CORPUS)/*/*.data)))

# Fuzzing (issue 9): each tests/fuzz/fuzz-<name>.c is linked by clang with
# libFuzzer against the library compiled for it (FUZZ_BUILD, build-fuzz/ by
# default), then runs FUZZ_SECONDS on tests/fuzz/corpus/<name>/; new inputs
# and crash artifacts stay in FUZZ_BUILD.  A crash stops make with the
# reproducer's path.
# FUZZ_SEED=N fixes libFuzzer's random seed (CI's smoke run uses one, so
# that a red CI is a regression to reproduce, not a new find by chance).
FUZZ_SECONDS ?= 60
FUZZ_SEED    ?=
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  = -std=gnu11 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE -Iinclude $(BANNED) \
	-DMMPROF_VERSION='"$(VERSION)"' \
	$(LIBPERF_CFLAGS) $(PKG_CFLAGS) -MMD -MP $(FUZZ_SAN)
FUZZ_LIB     := $(FUZZ_BUILD)/libmmprof.a
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(sort $(wildcard tests/fuzz/fuzz-*.c)))

fuzz: $(FUZZ_BIN)
	$(Q)set -e; for f in $(FUZZ_BIN); do \
		n=$${f#$(FUZZ_BUILD)/fuzz-}; mkdir -p $(FUZZ_BUILD)/corpus/$$n tests/fuzz/corpus/$$n; \
		echo "  FUZZ    $$n ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -timeout=20 -print_final_stats=0 \
			$(if $(FUZZ_SEED),-seed=$(FUZZ_SEED)) \
			-artifact_prefix=$(FUZZ_BUILD)/crash-$$n- \
			$(FUZZ_BUILD)/corpus/$$n tests/fuzz/corpus/$$n >$(FUZZ_BUILD)/$$n.log 2>&1 || \
			{ tail -40 $(FUZZ_BUILD)/$$n.log; echo "mmprof: fuzz-$$n failed; reproducer in $(FUZZ_BUILD)/crash-$$n-*" >&2; exit 1; }; \
		tail -1 $(FUZZ_BUILD)/$$n.log; \
	done

$(FUZZ_BUILD)/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIB) | $(BUILD)/.deps-fuzz
	@echo "  FUZZCC  $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LIBS)

$(FUZZ_LIB): $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/%.o: %.c $(LIBPERF_DEP) | $(DEPS_BUILD) $(BUILD)/.deps-fuzz
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

install: $(BUILD)/mmprof
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BUILD)/mmprof $(DESTDIR)$(BINDIR)/mmprof
	$(if $(MAN_SRC),install -m 644 $(MAN_SRC) $(DESTDIR)$(MANDIR)/man1/)
	install -d $(DESTDIR)$(COMPDIR)
	install -m 644 src/scripts/mmprof-completion.bash $(DESTDIR)$(COMPDIR)/mmprof

# clean: what BUILD's folder and the fuzz build beside it hold, but the
# dependency stamps (for the default build/ also build-san/ and ./mmprof);
# the shared libperf stays.  distclean: the folders, stamps and libperf too.
clean:
	rm -rf $(addprefix $(BUILD)/,mmprof src tests workloads bench libmmprof.a test-logs demo) \
		$(FUZZ_BUILD) $(if $(filter build,$(BUILD)),build-san mmprof)

distclean: clean
	rm -rf $(BUILD) $(LIBPERF_DIR)

help:
	@sed -n '2,/^#$$/p' Makefile | sed -e '/^#$$/d' -e 's/^# \{0,1\}//'

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_BIN:=.d) $(BENCH_BIN:=.d) \
	$(wildcard $(FUZZ_BUILD)/src/*/*.d $(FUZZ_BUILD)/src/*.d $(FUZZ_BUILD)/fuzz-*.d)
