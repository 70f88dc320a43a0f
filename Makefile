# User-space I/O-port access on Linux x86: our patch series on Debian's
# linux-source-6.1 and linux-source-6.12, built and proven in QEMU. See
# README.md.
SHELL := /bin/bash
S := scripts
FRAG := config/test.config config/kunit.config

# TREE=6.1 (Debian 12) or TREE=6.12 (Debian 13) picks one tree. Without it
# the targets that build or boot one kernel use 6.12, Debian's current
# stable and the nearest to upstream, and the check targets run both.
ONE := $(or $(TREE),6.12)
export TREES := $(or $(TREE),6.1 6.12)
T := TREE=$(ONE)

.PHONY: all deps src tree export outgoing checkpatch bench bench-cycles x86-selftests fuzz check-all check-debug check-series check-xen check-debcfg docs programs stock patched guest run shell check check-stock check-i386 test-harness clean

all: check

deps:
	@$(S)/deps.sh

src: deps
	@$(T) $(S)/unpack.sh

tree: src
	@$(T) $(S)/tree.sh

export:
	@$(T) $(S)/export.sh

# The series as mails in build/$TREE/outgoing/, cover letter and To:/Cc:
# included; a person signs the series and sends them.
outgoing:
	@$(T) $(S)/outgoing.sh

checkpatch: tree
	@$(T) $(S)/checkpatch.sh

stock: src
	@$(T) $(S)/kbuild.sh stock build/$(ONE)/src config/test.config

patched: tree
	@$(T) $(S)/kbuild.sh patched build/$(ONE)/tree $(FRAG)

guest: tree
	@$(T) $(S)/guest.sh build/$(ONE)/tree

# Build the patched kernel and show, in plain words, what it does.
run: patched guest
	@status=0; $(T) $(S)/boot.sh build/$(ONE)/patched/bzImage build/$(ONE)/logs/run.log demo $(CMDLINE) || status=$$?; \
	sed -n 's/^    //p' build/$(ONE)/logs/run.log; \
	$(T) $(S)/verdict.sh build/$(ONE)/logs/run.log run $$status >/dev/null || \
		{ echo "run: the demo failed, see build/$(ONE)/logs/run.log" >&2; exit 1; }

shell: patched guest
	@$(T) $(S)/boot.sh build/$(ONE)/patched/bzImage - shell $(CMDLINE)

# Per tree: every mode, build variants, KUnit, checkpatch, docs and
# Debian's programs on x86_64, then the 32-bit kernel and selftests.
# Without TREE=, 6.12 runs in full and 6.1 on x86_64 without the Kconfig
# build variants (BRIEF_TREES): both trees in full take longer than CI's
# 90 minutes on 2 cores. check-all runs both in full.
CHECK_RUNS := $(if $(TREE),$(TREE):x86_64 $(TREE):i386,6.12:x86_64 6.12:i386 6.1:x86_64)
check: deps
	@BRIEF_TREES="$(if $(TREE),,6.1)" RUNS="$(CHECK_RUNS)" $(S)/trees.sh check.sh patched

check-i386: deps
	@ARCHES=i386 $(S)/trees.sh check.sh patched

check-stock: deps
	@$(S)/trees.sh check.sh stock

check-debug: deps
	@$(S)/trees.sh check.sh debug

# Everything: both trees in full, Xen, Debian's configs, the sanitizer
# suite and bisectability.
check-all: deps
	@$(MAKE) --no-print-directory check TREE=6.12
	@$(MAKE) --no-print-directory check TREE=6.1
	@$(MAKE) --no-print-directory check-xen
	@$(MAKE) --no-print-directory check-debcfg
	@$(MAKE) --no-print-directory check-debug
	@$(MAKE) --no-print-directory check-series
	@$(MAKE) --no-print-directory x86-selftests TREE=6.12
	@$(MAKE) --no-print-directory x86-selftests TREE=6.1
	@$(MAKE) --no-print-directory fuzz

# Every patch of the series builds and boots on its own.
check-series: deps
	@$(S)/trees.sh series.sh

# The Sphinx build of Documentation/x86, where the series adds ioport.rst.
docs: tree
	@$(T) $(S)/docs.sh

# The stock and the patched kernel as Xen PV dom0, with the I/O-port tests.
check-xen: deps
	@$(S)/trees.sh xen.sh

# Debian's config.amd64_none_amd64: the Kconfig default, and W=1 warnings
# of the objects the series touches, stock against patched.
check-debcfg: deps
	@$(S)/trees.sh debcfg.sh

# Debian's port-I/O programs on the stock kernel and in every iopl= mode.
programs: deps
	@$(T) $(S)/programs.sh

# Instructions per switch under QEMU -icount, then cycles per TSS update
# on this machine's CPU (bench-cycles alone takes about a minute).
bench: deps
	@$(S)/bench.sh
	@$(S)/cycles.sh $(foreach t,$(TREES),--tree $(t))

bench-cycles: deps
	@$(S)/cycles.sh $(foreach t,$(TREES),--tree $(t))

# The tree's whole x86 selftest directory on stock and patched, 64-bit on
# x86_64 and 32-bit on i386 kernels (TREE=6.12 by default).
x86-selftests: deps
	@$(T) $(S)/x86selftests.sh
	@$(T) KARCH=i386 $(S)/x86selftests.sh

# trinity and guest/ioport_fuzz.c on the sanitizer kernel, iopl=compat and
# iopl=strict.
fuzz: deps
	@$(T) $(S)/fuzz.sh

test-harness:
	@tests/harness/run.sh

clean:
	rm -rf build/*/stock* build/*/patched* build/*/guest* build/*/logs build/*/series* build/logs build/bench
