# hloscope - see README.md.
#
#   make              build ./hloscope
#   make check        every test, then the whole suite again under ASan+UBSan
#                     (JOBS=N suites at once, default nproc; SUITES="a b" some)
#   make bench        benchmarks against numpy and Graphviz, as ratios
#   make demo         install what is missing (as root), build, write the demo data
#                     (synthetic, plus the bundled real samples), open it
#   make screenshots  regenerate screenshots/*.png from real runs
#   make fuzz         build every libFuzzer target tests/fuzz/fuzz_*.c (needs clang)
#                     and run each for FUZZ_SECONDS (60)
#   make install PREFIX=/usr/local
#
# CFLAGS, CPPFLAGS and LDFLAGS given by the user come after ours (CFLAGS=-O0
# wins).  WERROR=1 turns warnings into errors (CI sets it).

PREFIX  ?= /usr/local
CC      ?= cc
PKGS    := ncursesw libcgraph libgvc zlib readline libprotobuf-c libpcre2-8 liblzma
PY      ?= /usr/bin/python3
DATA    ?= $(abspath tests/data/tpugraphs)
DEMO    ?= demo-data

# Inflater: Intel ISA-L when pkg-config finds libisal (several times faster
# than zlib on big members), else zlib.  `make INFLATE=zlib` forces zlib; it
# then builds in its own folder (build/release-zlib), so both can coexist.
HAVE_ISAL := $(shell pkg-config --exists libisal 2>/dev/null && echo yes)
INFLATE ?= $(if $(HAVE_ISAL),isal,zlib)
ifeq ($(INFLATE),isal)
  PKGS += libisal
  INFLATE_CFLAGS := -DHS_HAVE_ISAL
endif

# Deflater of the .npz files we write: libdeflate when pkg-config finds it
# (the same format, about twice as fast at zlib's default level), else
# zlib.  `make DEFLATE=zlib` forces zlib.
HAVE_LIBDEFLATE := $(shell pkg-config --exists libdeflate 2>/dev/null && echo yes)
DEFLATE ?= $(if $(HAVE_LIBDEFLATE),libdeflate,zlib)
ifeq ($(DEFLATE),libdeflate)
  PKGS += libdeflate
  INFLATE_CFLAGS += -DHS_HAVE_LIBDEFLATE
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-unused-parameter -Wformat=2 -Wno-format-truncation
ifeq ($(WERROR),1)
  WARN += -Werror
endif
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -D_XOPEN_SOURCE_EXTENDED $(WARN) -g \
           -I. $(PKG_CFLAGS) $(INFLATE_CFLAGS)
# What every compile and link gets: ours, then the user's.
COMPILE = $(CC) $(BASE_CFLAGS) $(VFLAGS) $(CPPFLAGS) $(CFLAGS)
LINK    = $(CC) $(VFLAGS) $(CFLAGS) $(LDFLAGS)
OPT     ?= -O2
ASAN_OPT ?= -O1
LDLIBS  := $(PKG_LIBS) -lm -lpthread

# Variant: release (default) or asan.  Objects go to build/$(V)/.
BUILD ?= build
V ?= release
ifeq ($(V),asan)
  # The suite starts thousands of processes, so what each start and exit
  # costs counts: not position-independent (a PIE sanitizer binary carries
  # ~100,000 relative relocations, the instrumented globals, applied at
  # every start), and the sanitizer runtimes linked in statically (with the
  # shared ones LeakSanitizer's exit scan touches their 12 MB of zeroed data
  # in every process: 55 ms against 30 ms for an empty program here).
  # -g1: line tables only, all a sanitizer report needs (file:line in every
  # frame); full debug information cost a seventh of the build's time.
  VFLAGS := $(ASAN_OPT) -g1 -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=undefined -fno-pie -no-pie \
            -static-libasan -static-libubsan
else
  VFLAGS := $(OPT)
endif
VSUFFIX := $(if $(and $(HAVE_ISAL),$(filter zlib,$(INFLATE))),-zlib)
B := $(BUILD)/$(V)$(VSUFFIX)

MODULES  := base loader render model synth doc query tui repl
LIB_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
# Protobuf messages: protoc-c writes C into the build folder (never edited,
# never committed); the objects join the library.
PROTO_SRC := $(wildcard loader/proto/*.proto)
GEN      := $(B)/gen
BASE_CFLAGS += -I$(GEN)
PROTO_C  := $(PROTO_SRC:loader/proto/%.proto=$(GEN)/loader/proto/%.pb-c.c)
PROTO_H  := $(PROTO_C:.c=.h)
PROTO_OBJ := $(PROTO_C:.c=.o)
CLI_SRC  := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/%.o)
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# Fuzz targets: tests/fuzz/fuzz_<target>.c, seeds in tests/fuzz/corpus/<target>/.
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAYS  := $(FUZZ_TARGETS:%=$(B)/tests/fuzz/replay_%)
# Test tools: the HLO text reader from the command line (tests/hlo).
TOOLS    := $(B)/tests/hlo_tool

.PHONY: all build check check-fast check-asan test bench demo screenshots \
        fuzz install clean deps units goldens
all: hloscope

# ./hloscope is the release build of the default build folder.
hloscope: $(B)/hloscope
ifeq ($(V)$(BUILD),releasebuild)
	@cp $< $@
endif

# Rebuilt from scratch: a renamed or removed source must not leave its old
# object behind in the archive.
$(B)/libhloscope.a: $(LIB_OBJ) $(PROTO_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# One protoc-c run writes a .pb-c.c and its .pb-c.h (a grouped pattern rule).
$(GEN)/loader/proto/%.pb-c.c $(GEN)/loader/proto/%.pb-c.h: loader/proto/%.proto $(PROTO_SRC)
	@mkdir -p $(@D)
	protoc-c --proto_path=loader/proto --c_out=$(@D) $<

$(PROTO_OBJ): %.o: %.c
	$(CC) $(BASE_CFLAGS) $(VFLAGS) -MMD -MP -c -o $@ $<

# Sources include the generated headers: make them first.
$(LIB_OBJ) $(CLI_OBJ) $(UNITS) $(TOOLS) $(REPLAYS): | $(PROTO_H)

$(B)/hloscope: $(CLI_OBJ) $(B)/libhloscope.a
	$(LINK) -o $@ $(CLI_OBJ) $(B)/libhloscope.a $(LDLIBS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(COMPILE) -MMD -MP -c -o $@ $<

# Test programs: their objects come from the rule above (with dependency
# files, so they rebuild when a header changes), then one link each.
$(UNITS): $(B)/tests/%: $(B)/tests/unit/%.o $(B)/libhloscope.a
	$(LINK) -o $@ $< $(B)/libhloscope.a $(LDLIBS)

# One replayer (tests/fuzz/replay.c) linked with each fuzz target: runs its
# corpus without libFuzzer, in the release and the ASan build.
$(B)/tests/fuzz/replay_%: tests/fuzz/replay.c tests/fuzz/fuzz_%.c $(B)/libhloscope.a
	@mkdir -p $(@D)
	$(COMPILE) $(LDFLAGS) -MMD -MP -MF $@.d -o $@ tests/fuzz/replay.c \
	    tests/fuzz/fuzz_$*.c $(B)/libhloscope.a $(LDLIBS)

$(B)/tests/hlo_tool: tests/hlo/hlo_tool.c $(B)/libhloscope.a
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(VFLAGS) -o $@ $< $(B)/libhloscope.a $(LDLIBS)

# With ISA-L, `make units` also links the zlib fallback (only inflater.o
# differs), so tests/suites/inflate_paths.sh and test_loader_zlib check that
# both inflaters read every file alike.
ifeq ($(INFLATE),isal)
ZLIB_LIB := $(B)/zlib/libhloscope.a
TOOLS    += $(B)/tests/hloscope-zlib $(B)/tests/test_loader_zlib $(B)/tests/test_inflater_zlib \
            $(B)/tests/zipcat $(B)/tests/zipcat_zlib

$(B)/zlib/loader/inflater.o: loader/inflater.c
	@mkdir -p $(@D)
	$(COMPILE) -UHS_HAVE_ISAL -MMD -MP -c -o $@ $<

$(ZLIB_LIB): $(filter-out $(B)/loader/inflater.o,$(LIB_OBJ)) $(PROTO_OBJ) $(B)/zlib/loader/inflater.o
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/tests/hloscope-zlib: $(CLI_OBJ) $(ZLIB_LIB)
	$(LINK) -o $@ $(CLI_OBJ) $(ZLIB_LIB) $(LDLIBS)

$(B)/tests/%_zlib: tests/unit/%.c $(ZLIB_LIB)
	$(COMPILE) $(LDFLAGS) -MMD -MP -o $@ $< $(ZLIB_LIB) $(LDLIBS)

$(B)/tests/zipcat: tests/tools/zipcat.c $(B)/libhloscope.a
	$(COMPILE) $(LDFLAGS) -MMD -MP -o $@ $< $(B)/libhloscope.a $(LDLIBS)

$(B)/tests/zipcat_zlib: tests/tools/zipcat.c $(ZLIB_LIB)
	$(COMPILE) $(LDFLAGS) -MMD -MP -o $@ $< $(ZLIB_LIB) $(LDLIBS)

-include $(B)/zlib/loader/inflater.d $(TOOLS:=.d)
endif

# A preload library that makes allocations fail from the Nth on
# (tests/suites/out_of_memory.sh); not under the sanitizers, whose
# allocator it would fight.
ifneq ($(V),asan)
TOOLS += $(B)/tests/failalloc.so
$(B)/tests/failalloc.so: tests/tools/failalloc.c
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(OPT) -fPIC -shared -o $@ $< -ldl
endif

units: $(B)/hloscope $(UNITS) $(TOOLS) $(REPLAYS)

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(REPLAYS:=.d) $(PROTO_OBJ:.o=.d)

# The whole suite: once on the release build, once under ASan+UBSan, the
# two passes at once.  The sanitizer build starts beside the release build
# and suites, and its suites start as soon as it is done, sharing JOBS CPU
# slots with the release ones (SLOTS in tests/run.sh): no CPU idles while
# either pass has suites left, and none is oversubscribed.  The release
# report comes first, then the sanitizer report as it is written (its
# build log instead if that build fails).
SLOTS_FIFO := $(BUILD)/check-slots
check:
	@mkdir -p $(BUILD); rm -f $(SLOTS_FIFO); mkfifo $(SLOTS_FIFO) && exec 9<>$(SLOTS_FIFO) || exit 1; \
	n=$${JOBS:-$$(nproc 2>/dev/null || echo 2)}; while [ $$n -gt 0 ]; do echo t >&9; n=$$((n - 1)); done; \
	san_log=$(BUILD)/check-asan.log; : >$$san_log; \
	{ if $(MAKE) --no-print-directory V=asan units >$(BUILD)/asan-build.log 2>&1; then \
		SLOTS=$(SLOTS_FIFO) $(MAKE) --no-print-directory check-asan >>$$san_log 2>&1; \
	  else { echo "FAIL the ASan+UBSan build:"; cat $(BUILD)/asan-build.log; } >>$$san_log; exit 1; fi; } & san=$$!; \
	SLOTS=$(SLOTS_FIFO) $(MAKE) --no-print-directory check-fast; rc=$$?; \
	tail -n +1 --pid=$$san -f $$san_log; wait $$san; rc_san=$$?; \
	rm -f $(SLOTS_FIFO); [ $$rc -eq 0 ] && [ $$rc_san -eq 0 ]

check-fast: hloscope units
	@HLOSCOPE_BUILD=$(B) PY=$(PY) DATA=$(DATA) sh tests/run.sh

# quarantine_size_mb: freed blocks wait in a quarantine of 32 MB, not the
# default 256, before they are reused; a use after free is still caught
# unless 32 MB were freed in between, and the suite's short processes
# touch fewer fresh pages (6% of the pass).
check-asan:
	$(MAKE) --no-print-directory V=asan units
	@HLOSCOPE_BUILD=$(BUILD)/asan$(VSUFFIX) PY=$(PY) DATA=$(DATA) \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99:quarantine_size_mb=32 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	    sh tests/run.sh

test: check

# Regenerates golden files; review the diff before committing.
goldens: hloscope units
	@HLOSCOPE_BUILD=$(B) PY=$(PY) DATA=$(DATA) UPDATE_GOLDENS=1 sh tests/run.sh

bench: hloscope units
	@HLOSCOPE_BUILD=$(B) PY=$(PY) DATA=$(DATA) sh bench/run.sh

deps:
	@sh tools/deps.sh

# The synthetic demo data, with the bundled real samples beside it in
# $(DEMO)/TpuGraphs (listed first in the dataset view).
demo: deps
	@$(MAKE) --no-print-directory hloscope
	./hloscope synth $(DEMO)
	mkdir -p $(DEMO)/TpuGraphs && cp -R tests/data/tpugraphs/. $(DEMO)/TpuGraphs/
	./hloscope $(DEMO)

screenshots: hloscope
	@PY=$(PY) DATA=$(DATA) sh tools/screenshots.sh

# Every tests/fuzz/fuzz_<target>.c becomes $(BUILD)/fuzz/fuzz_<target>, built
# with clang against the library compiled once with coverage; any target
# that fails to build fails `make fuzz`.
FUZZ_DIR  := $(BUILD)/fuzz
FUZZ_CC   := clang $(BASE_CFLAGS) -Wno-unknown-warning-option -O1 $(CPPFLAGS) $(CFLAGS)
FUZZ_OBJ  := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o) $(PROTO_C:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

FUZZ_BINS += $(if $(filter isal,$(INFLATE)),$(FUZZ_DIR)/fuzz_npz_zlib)

# `make fuzz` builds them, then runs each for FUZZ_SECONDS (tests/fuzz/run.sh:
# a table of executions and coverage; crashes become seeds);
# FUZZ_RUN="hlo_text npz" runs some, FUZZ_SECONDS=0 only builds.
FUZZ_SECONDS ?= 60
FUZZ_RUN ?=
fuzz: $(FUZZ_BINS)
	@if [ "$(FUZZ_SECONDS)" != 0 ]; then FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_RUN); fi

$(FUZZ_OBJ): | $(PROTO_H)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/libhloscope.a: $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libhloscope.a
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $(LDFLAGS) -MMD -MP -MF $@.d -o $@ $< \
	    $(FUZZ_DIR)/libhloscope.a $(LDLIBS)

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_BINS:=.d)

# With ISA-L, the npz target is also built on the zlib fallback (only
# inflater.o differs), so both inflaters are fuzzed.
$(FUZZ_DIR)/zlib/inflater.o: loader/inflater.c
	@mkdir -p $(@D)
	$(FUZZ_CC) -UHS_HAVE_ISAL -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/fuzz_npz_zlib: tests/fuzz/fuzz_npz.c $(filter-out $(FUZZ_DIR)/obj/loader/inflater.o,$(FUZZ_OBJ)) $(FUZZ_DIR)/zlib/inflater.o
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $(LDFLAGS) -o $@ $^ $(LDLIBS)

install: hloscope
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 hloscope $(DESTDIR)$(PREFIX)/bin/hloscope
	install -m 644 hloscope.1 $(DESTDIR)$(PREFIX)/share/man/man1/hloscope.1

clean:
	rm -rf build hloscope
