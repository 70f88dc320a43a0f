# User-space I/O-port access on Linux x86: our patch series on Debian's
# linux-source-6.1 and linux-source-6.12, built and proven in QEMU. See
# README.md; `make` or `make help` lists the targets.
#
# TREE=6.1 (Debian 12) or TREE=6.12 (Debian 13) picks one tree. Without it
# the targets that build or boot one kernel use the default tree (set in
# scripts/lib/common.sh, 6.12), and the check targets run both.
# Other variables: KARCH=i386 (32-bit kernels), ACCEL=kvm (QEMU),
# CMDLINE= (run, shell), FORCE=1 (tree), FUZZ_TRINITY_SYSCALLS=,
# FUZZ_OWN_SYSCALLS= (fuzz), FLAVOUR= and LSMOD= (deb).
SHELL := /bin/bash
S := scripts
L := scripts/lib
EACH := $(S)/for-each-tree.sh

.DEFAULT_GOAL := help
.PHONY: help deps src tree export outgoing checkpatch stock patched guest run shell \
	check check-i386 check-stock check-debug check-all check-series check-xen \
	check-debcfg check-debian deb docs programs bench bench-cycles x86-selftests fuzz test-harness clean

help: ## this list
	@awk -F ':.*## ' '/^[a-z0-9-]+:.*## / { printf "  make %-14s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@echo "  (TREE=6.1 or TREE=6.12 picks a tree; see README.md)"

deps: ## install the Debian packages the harness needs (as root)
	@$(S)/deps.sh

src: deps ## unpack Debian's linux-source-$TREE into build/$TREE/src
	@$(L)/unpack.sh

tree: src ## build/$TREE/tree: git tree of the source plus patches/$TREE (FORCE=1 rebuilds)
	@$(L)/tree.sh $(if $(filter 1,$(FORCE)),--force)

export: ## write patches/$TREE/ back from build/$TREE/tree
	@$(S)/export.sh

outgoing: ## the series as mails in build/$TREE/outgoing/, for a person to sign and send
	@$(S)/outgoing.sh

checkpatch: tree ## the tree's checkpatch.pl --strict on every patch
	@$(S)/checkpatch.sh

stock: src ## build the stock kernel of $TREE
	@$(L)/kbuild.sh stock

patched: tree ## build the patched kernel of $TREE
	@$(L)/kbuild.sh patched

guest: tree ## build the guest initramfs
	@$(L)/guest.sh

run: patched guest ## boot the patched kernel and show, in plain words, what it does
	@$(S)/run.sh demo $(CMDLINE)

shell: patched guest ## boot the patched kernel with a shell on this terminal (Ctrl-A X quits)
	@$(S)/run.sh shell $(CMDLINE)

# make check, what CI runs (.ci/run). Per tree: the boot matrix on x86_64
# (every mode, a kernel without X86_IOPL_IOPERM, KUnit), the host checks
# (checkpatch, docs, Debian's programs), the boot matrix on i386. The
# checks that do not depend on the tree run once, with 6.12: the
# harness's own tests, the parity of the two series, the figures, the port trace,
# CPU hotplug at scale and one Xen PV dom0 boot of the patched kernel (the
# Xen PV fix shows nowhere else). Without TREE=, 6.12 runs in full and 6.1 on
# x86_64 without i386: both trees in full take longer than CI's 90 minutes
# on 2 cores. check-all runs both in full.
ifdef TREE
ONCE := $(if $(filter 6.12,$(TREE)),--parity --porttrace --figures)
CHECK_JOBS := --job "$(TREE) check.sh patched $(if $(ONCE),--hotplug)" \
	--job "$(TREE) host-checks.sh --harness $(ONCE)" --job "$(TREE)-i386 check.sh patched" \
	$(if $(ONCE),--job "$(TREE) xen.sh --patched")
else
CHECK_JOBS := --job "6.12 check.sh patched --hotplug" \
	--job "6.12 host-checks.sh --harness --parity --porttrace --figures" \
	--job "6.12 xen.sh --patched" \
	--job "6.12-i386 check.sh patched" \
	--job "6.1 check.sh patched" --job "6.1 host-checks.sh"
endif
check: deps ## the CI suite: 6.12 in full, 6.1 on x86_64 only; host checks
	@$(EACH) $(CHECK_JOBS)

check-i386: deps ## the 32-bit boot matrix, both trees (make check runs 6.12's)
	@$(EACH) $(if $(TREE),--trees $(TREE)) --arches i386 check.sh patched

check-stock: deps ## the boot matrix on the unpatched kernels; what the series changes is CHANGED
	@$(EACH) $(if $(TREE),--trees $(TREE)) check.sh stock

check-debug: deps ## the boot matrix on the sanitizer kernel (KASAN, UBSAN, lockdep, kmemleak)
	@$(EACH) $(if $(TREE),--trees $(TREE)) check.sh debug

check-all: deps ## check on both trees in full, Xen, Debian's configs and check-debian, sanitizer, bisectability, x86-selftests, fuzz; not check-stock
	@$(MAKE) --no-print-directory check TREE=6.12
	@$(MAKE) --no-print-directory check TREE=6.1
	@$(MAKE) --no-print-directory check-xen
	@$(MAKE) --no-print-directory check-debcfg
	@$(MAKE) --no-print-directory check-debian
	@$(MAKE) --no-print-directory check-debug
	@$(MAKE) --no-print-directory check-series
	@$(MAKE) --no-print-directory x86-selftests TREE=6.12
	@$(MAKE) --no-print-directory x86-selftests TREE=6.1
	@$(MAKE) --no-print-directory fuzz

check-series: deps ## bisectability: every patch of the series builds and boots on its own
	@$(EACH) $(if $(TREE),--trees $(TREE)) series.sh

check-xen: deps ## the stock and the patched kernel as Xen PV dom0, with the I/O-port tests
	@$(EACH) $(if $(TREE),--trees $(TREE)) xen.sh

check-debcfg: deps ## Debian's config.amd64_none_amd64: the options the series needs, W=1 warnings
	@$(EACH) $(if $(TREE),--trees $(TREE)) debian-config.sh

check-debian: deps ## make deb's cloud packages, dpkg -i into Debian 12, booted under systemd in every mode
	@$(EACH) $(if $(TREE),--trees $(TREE)) debian.sh

deb: tree ## Debian packages of the patched kernel: FLAVOUR=amd64 (default) or cloud-amd64, LSMOD=FILE cuts the modules
	@$(L)/debkbuild.sh --flavour $(or $(FLAVOUR),amd64) $(if $(LSMOD),--lsmod $(abspath $(LSMOD)))

docs: tree ## the Sphinx build of Documentation/x86 with the series' ioport.rst
	@$(S)/docs.sh

programs: deps ## Debian's port-I/O programs on the stock kernel and in every iopl= mode
	@$(S)/programs.sh

bench: deps ## instructions per switch under QEMU -icount, then bench-cycles
	@bench/icount.sh $(foreach t,$(TREE),--tree $(t))
	@bench/cycles.sh $(foreach t,$(TREE),--tree $(t))

bench-cycles: deps ## TSC cycles per TSS update on this CPU against the series' bound
	@bench/cycles.sh $(foreach t,$(TREE),--tree $(t))

x86-selftests: deps ## the tree's whole tools/testing/selftests/x86, stock against patched, 64 and 32 bits
	@$(S)/x86-selftests.sh
	@KARCH=i386 $(S)/x86-selftests.sh

fuzz: deps ## trinity and guest/ioport_fuzz.c on the sanitizer kernel of $TREE (6.12), iopl=compat and strict
	@$(S)/fuzz.sh $(if $(FUZZ_TRINITY_SYSCALLS),--trinity-calls $(FUZZ_TRINITY_SYSCALLS)) \
		$(if $(FUZZ_OWN_SYSCALLS),--own-calls $(FUZZ_OWN_SYSCALLS))

test-harness: ## the host-side tests of the harness (recorded logs), seconds
	@tests/harness/run.sh

clean: ## remove the kernels, guests and logs (keeps the trees)
	rm -rf build/*/stock* build/*/patched* build/*/guest* build/*/logs build/*/series* build/logs build/bench
