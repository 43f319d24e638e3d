# rackbisect: `make` builds into build/; `make demo`, `make check`, `make bench`,
# `make deps` are described in README.md.

BUILD     := build
CC        := gcc
PKGCONFIG := libuv yaml-0.1 jansson sqlite3 libssh libcurl

# Debian packages the build, the tests and the virtual lab need (pssh: make bench
# compares the coordinator's SSH fan-out with parallel-ssh; chromium renders the
# HTML report and python3-jsonschema validates the KCIDB one in test_report.sh;
# pdudaemon and ser2net are the real daemons the power and console drivers are
# tested against; QEMU, Debian's kernel, kexec-tools, dropbear, hostapd and iw
# make the real-kernel board of drivers/qemu/board.sh, with cpio and kmod's
# depmod to build its initramfs).
DEBIAN_PACKAGES := gcc make pkg-config git libc6-dev \
	libuv1-dev libssh-dev libyaml-dev libcurl4-openssl-dev libsqlite3-dev \
	libjansson-dev libcmocka-dev openssh-server openssh-client \
	busybox-static procps pssh chromium python3-jsonschema pdudaemon ser2net \
	qemu-system-x86 linux-image-amd64 kexec-tools dropbear-bin hostapd iw cpio kmod \
	grub2-common

# Build on every core unless told otherwise (`make -j1` still wins): a serial
# build of the programs, their sanitized twins and the unit tests takes
# minutes of `make check`. Only at the top: a sub-make (`make deps`) shares
# the top one's jobs, and forcing -j there resets them, with a warning.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc)
endif

WARNINGS  := -Wall -Wextra -Werror
CPPFLAGS  := -D_GNU_SOURCE -Isrc -Idrivers -I$(BUILD)/gen
CFLAGS    := -std=gnu11 -O2 -g $(WARNINGS)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGCONFIG) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGCONFIG) 2>/dev/null)
LDLIBS    := -ldl -lm
SANITIZE  := -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=undefined

MODELKERNEL_TREE := drivers/virtual/modelkernel/tree
TEMPLATE_FILES   := $(shell find $(MODELKERNEL_TREE) -type f)
GENERATED_SRCS   := $(BUILD)/gen/modelkernel_template.c

# Programs: each has one main file; every other .c is library code.
RB_MAIN    := src/main.c
VLAB_MAIN  := drivers/virtual/vlab_main.c
TOOL_MAIN  := drivers/virtual/board/board_tool_main.c
MAINS      := $(RB_MAIN) $(VLAB_MAIN) $(TOOL_MAIN)
LIB_SRCS   := $(filter-out $(MAINS),$(shell find src drivers -name '*.c' \
		-not -path '$(MODELKERNEL_TREE)/*' 2>/dev/null))
UNIT_TESTS := $(basename $(notdir $(wildcard tests/unit/test_*.c)))
TEST_HELPER_SRCS := $(wildcard tests/unit/helpers/*.c)

objs = $(patsubst %.c,$(1)/obj/%.o,$(2))

.PHONY: all deps check check-faults demo bench fuzz clean unit-tests fuzz-replay
# Keep objects make would treat as intermediate (tests, benchmarks).
.SECONDARY:
all: $(BUILD)/rackbisect $(BUILD)/rackbisect-vlab $(BUILD)/rackbisect-board-tool

# ---- dependencies ----------------------------------------------------------
# A stamp per package list: deps are checked once, installed only if missing.
DEPS_STAMP := $(BUILD)/.deps-$(shell echo $(DEBIAN_PACKAGES) | cksum | cut -d' ' -f1)
# install-missing PACKAGES: apt-get install what dpkg does not have yet
define install-missing
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing:" $$missing; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	else echo "make deps: all Debian packages present"; fi
endef
deps:
	$(call install-missing,$(DEBIAN_PACKAGES))
	@mkdir -p $(BUILD) && touch $(DEPS_STAMP)

$(DEPS_STAMP):
	@$(MAKE) --no-print-directory deps

# ---- generated sources -----------------------------------------------------
$(BUILD)/gen/modelkernel_template.c: drivers/virtual/modelkernel/embed-tree.sh $(TEMPLATE_FILES)
	@mkdir -p $(dir $@)
	sh drivers/virtual/modelkernel/embed-tree.sh $(MODELKERNEL_TREE) > $@.tmp && mv $@.tmp $@

# ---- normal build ----------------------------------------------------------
$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# Programs link the library as an archive, so each takes only the objects it
# uses (the coordinator carries no simulator, the virtual lab no scheduler).
LIB_OBJS := $(call objs,$(BUILD),$(LIB_SRCS) $(GENERATED_SRCS))
$(BUILD)/librackbisect.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

# The coordinator, the program users run.
$(BUILD)/rackbisect: $(call objs,$(BUILD),$(RB_MAIN)) $(BUILD)/librackbisect.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(BUILD)/rackbisect-vlab: $(call objs,$(BUILD),$(VLAB_MAIN)) $(BUILD)/librackbisect.a
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# The shim every board tool (iw, ping, dmesg, sleep, ...) is a link to: small,
# no sanitizers, started thousands of times per workload; static, since the
# dynamic loader's work was 40 % of each start.
$(BUILD)/rackbisect-board-tool: $(call objs,$(BUILD),$(TOOL_MAIN))
	$(CC) $(CFLAGS) -static -o $@ $^

# Benchmarks are built without sanitizers: they measure speed.
$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(BUILD)/librackbisect.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# The scheduler's bench reaches its boards through the unit tests' local transport.
$(BUILD)/bench/bench_scheduler: $(BUILD)/obj/tests/bench/bench_scheduler.o \
		$(call objs,$(BUILD),$(TEST_HELPER_SRCS)) $(BUILD)/librackbisect.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lcmocka $(LDLIBS)

# ---- sanitized build for the tests ----------------------------------------
$(BUILD)/asan/obj/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

ASAN_LIB_OBJS := $(call objs,$(BUILD)/asan,$(LIB_SRCS) $(GENERATED_SRCS))
$(BUILD)/asan/librackbisect.a: $(ASAN_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/asan/rackbisect-vlab: $(call objs,$(BUILD)/asan,$(VLAB_MAIN)) $(BUILD)/asan/librackbisect.a
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(BUILD)/asan/rackbisect: $(call objs,$(BUILD)/asan,$(RB_MAIN)) $(BUILD)/asan/librackbisect.a
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(BUILD)/asan/tests/%: $(BUILD)/asan/obj/tests/unit/%.o $(call objs,$(BUILD)/asan,$(TEST_HELPER_SRCS)) $(BUILD)/asan/librackbisect.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(PKG_LIBS) -lcmocka $(LDLIBS)

unit-tests: $(addprefix $(BUILD)/asan/tests/,$(UNIT_TESTS))

# ---- fuzz harnesses (tests/fuzz/) ------------------------------------------
# One harness per parser of outside input; make check replays every saved
# input through the sanitized ones, make fuzz runs AFL++ on the afl-cc ones.
FUZZ_HARNESSES := $(filter-out fuzz_main,$(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c))))

$(BUILD)/asan/fuzz/%: $(BUILD)/asan/obj/tests/fuzz/%.o $(BUILD)/asan/obj/tests/fuzz/fuzz_main.o \
		$(BUILD)/asan/librackbisect.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

fuzz-replay: $(addprefix $(BUILD)/asan/fuzz/,$(FUZZ_HARNESSES))

# AFL++ (Debian's afl++, which brings clang) only for make fuzz: make check
# and make demo do not need it.
# make bench sets ansible's ad-hoc command module beside parallel-ssh (issue 9).
BENCH_PACKAGES := ansible-core
BENCH_DEPS_STAMP := $(BUILD)/.bench-deps-$(shell echo $(BENCH_PACKAGES) | cksum | cut -d' ' -f1)
$(BENCH_DEPS_STAMP): | $(DEPS_STAMP)
	$(call install-missing,$(BENCH_PACKAGES))
	@touch $@

FUZZ_PACKAGES := afl++
FUZZ_DEPS_STAMP := $(BUILD)/.fuzz-deps-$(shell echo $(FUZZ_PACKAGES) | cksum | cut -d' ' -f1)
$(FUZZ_DEPS_STAMP): | $(DEPS_STAMP)
	$(call install-missing,$(FUZZ_PACKAGES))
	@touch $@

AFL_CC := AFL_QUIET=1 AFL_USE_ASAN=1 AFL_USE_UBSAN=1 afl-cc
$(BUILD)/afl/obj/%.o: %.c | $(FUZZ_DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(AFL_CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/afl/librackbisect.a: $(call objs,$(BUILD)/afl,$(LIB_SRCS) $(GENERATED_SRCS))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/afl/fuzz/%: $(BUILD)/afl/obj/tests/fuzz/%.o $(BUILD)/afl/obj/tests/fuzz/fuzz_main.o \
		$(BUILD)/afl/librackbisect.a
	@mkdir -p $(dir $@)
	$(AFL_CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

# ---- the commands README.md promises ---------------------------------------
# They run kernel builds (`make` in model kernel trees): those must not see
# this make's -j and jobserver in MAKEFLAGS (they would warn and run -j1).
RUN_CLEAN := MAKEFLAGS= MFLAGS= MAKELEVEL=
check: $(DEPS_STAMP) all $(BUILD)/asan/rackbisect $(BUILD)/asan/rackbisect-vlab unit-tests fuzz-replay
	@$(RUN_CLEAN) sh tests/run-all.sh $(BUILD)

demo: $(DEPS_STAMP) all
	@$(RUN_CLEAN) bash drivers/virtual/demo.sh $(CURDIR)/$(BUILD)

# The seeded fault matrix (issue 9) alone, its two halves one after the
# other, about 6 minutes; `make check` runs them too, at once, beside the
# QEMU board at the end (tests/run-all.sh, "lane: end").
check-faults: $(DEPS_STAMP) all $(BUILD)/asan/rackbisect $(BUILD)/asan/rackbisect-vlab
	@$(RUN_CLEAN) RACKBISECT_BUILD=$(CURDIR)/$(BUILD) sh -c \
		'bash tests/integration/test_fault_matrix.sh; a=$$?; bash tests/integration/test_fault_gate.sh && exit $$a'

bench: $(DEPS_STAMP) $(BENCH_DEPS_STAMP) all $(BUILD)/bench/bench_sim $(BUILD)/bench/bench_fanout \
	$(BUILD)/bench/bench_bisect $(BUILD)/bench/bench_scheduler
	@$(RUN_CLEAN) bash tests/bench/run.sh $(CURDIR)/$(BUILD)

# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="fuzz_yaml fuzz_ktap"]: see tests/fuzz/README.md
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_HARNESSES)
fuzz: $(addprefix $(BUILD)/afl/fuzz/,$(FUZZ_TARGETS))
	@$(RUN_CLEAN) bash tests/fuzz/run.sh $(CURDIR)/$(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
