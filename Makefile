# User-space I/O-port access on Linux x86: our patch series on Debian's
# linux-source-6.1, built and proven in QEMU. See README.md.
SHELL := /bin/bash
S := scripts
TREE := build/tree
FRAG := config/test.config config/kunit.config

.PHONY: all deps src tree export checkpatch bench check-all check-debug check-series check-xen docs programs stock patched guest run shell check check-stock test-harness clean

all: check

deps:
	@$(S)/deps.sh

src: deps
	@$(S)/unpack.sh

tree: src
	@$(S)/tree.sh

export:
	@$(S)/export.sh

checkpatch: tree
	@$(S)/checkpatch.sh

stock: src
	@$(S)/kbuild.sh stock build/src $(FRAG)

patched: tree
	@$(S)/kbuild.sh patched $(TREE) $(FRAG)

guest: tree
	@$(S)/guest.sh $(TREE)

# Build the patched kernel and show, in plain words, what it does.
run: patched guest
	@status=0; $(S)/boot.sh build/patched/bzImage build/logs/run.log demo $(CMDLINE) || status=$$?; \
	sed -n 's/^    //p' build/logs/run.log; \
	$(S)/verdict.sh build/logs/run.log run $$status >/dev/null || \
		{ echo "run: the demo failed, see build/logs/run.log" >&2; exit 1; }

shell: patched guest
	@$(S)/boot.sh build/patched/bzImage - shell $(CMDLINE)

check: deps
	@$(S)/check.sh patched

check-stock: deps
	@$(S)/check.sh stock

check-debug: deps
	@$(S)/check.sh debug

# Everything: what CI runs, then the sanitizer suite and bisectability.
check-all: deps
	@$(MAKE) --no-print-directory check
	@$(MAKE) --no-print-directory check-xen
	@$(MAKE) --no-print-directory check-debug
	@$(MAKE) --no-print-directory check-series

# Every patch of the series builds and boots on its own.
check-series: deps
	@$(S)/series.sh

# The Sphinx build of Documentation/x86, where the series adds ioport.rst.
docs: tree
	@$(S)/docs.sh

# The stock and the patched kernel as Xen PV dom0, with the I/O-port tests.
check-xen: deps
	@$(S)/xen.sh

# Debian's port-I/O programs on the stock kernel and in every iopl= mode.
programs: deps
	@$(S)/programs.sh

bench: deps
	@$(S)/bench.sh

test-harness:
	@tests/harness/run.sh

clean:
	rm -rf build/stock build/patched build/guest build/logs build/series build/series-kernel
