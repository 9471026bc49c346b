# txpath: `make run` builds and runs the demo; `make test` builds and runs
# every test three times: plain, ASan+UBSan, TSan, and the fuzz targets for
# a few seconds each.
# O=DIR puts the build trees under DIR (default: here).
JOBS ?= 2
O ?= .
CMAKE_FLAGS ?=

# PREFIX (for install, below) and O reach the shell as one word each,
# whatever they hold (spaces, quotes): every recipe names O as $(OQ).  A
# ';' in either is refused before anything runs: CMake takes it for a
# list separator (it would split a build tree's paths, or the install
# manifest there, which uninstall could not read back).
PREFIX ?= /usr/local

# $(call shell_word,TEXT): TEXT single-quoted for sh, each ' in it as '\''.
shell_word = '$(subst ','\'',$(1))'
OQ = $(call shell_word,$(O))

ifeq ($(strip $(O)),)
$(error O is empty: give the directory of the build trees (default .))
endif
ifneq ($(findstring ;,$(O)),)
$(error O '$(O)' holds a ';': CMake would split the build tree's paths there; choose another)
endif
ifneq ($(findstring ;,$(PREFIX)),)
$(error PREFIX '$(PREFIX)' holds a ';': CMake would split its install manifest there; choose another)
endif

.PHONY: all deps build run test test-plain test-asan test-tsan bench bench-e2e prove mutate clean \
	fuzz fuzz-build test-fuzz install uninstall

all: build

deps:
	@sh scripts/deps.sh

build: deps
	@cmake -S . -B $(OQ)/build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(OQ)/build -j $(JOBS)

# The libraries (static and shared), headers, txpath.pc, txpath-net.pc,
# the CMake package, the txpath binary and the man pages, under PREFIX;
# uninstall removes what the last install from this build put there.
install: build
	@cmake --install $(OQ)/build --prefix $(call shell_word,$(PREFIX))

uninstall:
	@sh scripts/uninstall.sh $(OQ)/build/install_manifest.txt

run: build
	$(OQ)/build/txpath demo

define variant
	@cmake -S . -B $(OQ)/$(1) -DTXP_SANITIZE=$(2) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(OQ)/$(1) -j $(JOBS)
	cd $(OQ)/$(1) && ctest --output-on-failure -j $(JOBS)
endef

test: test-plain test-asan test-fuzz test-tsan

test-plain: build
	cd $(OQ)/build && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	$(call variant,build-asan,address)

test-tsan: deps
	$(call variant,build-tsan,thread)

# The libFuzzer targets (tests/fuzz), built with clang, ASan and UBSan in
# $(O)/build-fuzz.  Each runs over its checked-in corpus, then fuzzes for
# FUZZ_SECONDS from a copy of it; what fails is kept in
# $(O)/build-fuzz/fuzz-artifacts/.  `make test` runs them for 3 s each.
FUZZ_SECONDS ?= 60

fuzz-build: deps
	@cmake -S . -B $(OQ)/build-fuzz -DCMAKE_C_COMPILER=clang -DTXP_FUZZ=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(OQ)/build-fuzz -j $(JOBS) --target fuzz-targets

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(OQ)/build-fuzz $(FUZZ_SECONDS)

test-fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(OQ)/build-fuzz 3

# Throughput of txpath against its baselines (a table, and a chart in
# $(O)/build/bench.svg), then the hot path's instructions per packet under
# callgrind, in bursts of 32 and one packet at a time.  Never part of
# `make test`.  The bench's packages come first, then the build, so that
# its configure finds DPDK and the table has its rte_ring rows.
bench: deps
	@sh scripts/deps.sh bench
	@$(MAKE) --no-print-directory build
	$(OQ)/build/txpath bench --svg $(OQ)/build/bench.svg
	@sh bench/callgrind.sh $(OQ)/build/txpath
	@sh bench/callgrind.sh $(OQ)/build/txpath --burst 1 --bulk 1

# The real drivers against the tools people use, on a veth pair in a
# network namespace of its own (root): txpath afxdp against trafgen and
# DPDK's testpmd (bench/e2e/vs.sh), txpath replay against tcpreplay
# (bench/e2e/replay.sh); the senders interleaved over 5 rounds, medians
# counted at the peer, the issue's ratios, each sender's CPU per frame,
# and a perf profile of each.  Minutes; never part of `make test`.
bench-e2e: deps
	@sh scripts/deps.sh bench
	@$(MAKE) --no-print-directory build >/dev/null
	@sh bench/e2e/vs.sh $(OQ)/build/txpath
	@echo
	@sh bench/e2e/replay.sh $(OQ)/build/txpath

# Every era through the schedule explorer over a matrix of scenarios
# (producers x packets x ring x fragments x bulk, each filling the ring):
# the base and single-producer ones at bound 3 (BOUND=K), the wider ones
# at bound 2 (WIDE_BOUND=K), each checked against the seeds, and which it
# proved printed, each row of the full search on every CPU (txpath check
# --jobs), those with the reduction one a CPU side by side (CHECK_JOBS=N:
# N workers, N rows), and txpath demo --history's verdicts (ROWS=REGEX:
# only the rows whose "LABEL NAME", as printed, it matches).  Hours;
# never part of `make test`.
prove: build
	@sh scripts/deps.sh prove
	@sh scripts/prove.sh $(OQ)/build/txpath

# Every mutant of tests/mutants (a small bug in the real code each)
# applied to a scratch copy in $(O)/mutate, built, and checked by the
# txpath check it names: killed, or listed as a survivor with why.  A
# minute or so; `make test` runs the fast subset (ctest mutants_fast).
# Then again with the search's reduction (check --reduce) wherever it
# applies: it must kill what the full search kills.
mutate: deps
	@python3 tests/mutants/mutate.py . $(OQ)/mutate
	@python3 tests/mutants/mutate.py . $(OQ)/mutate --reduce

clean:
	rm -rf $(OQ)/build $(OQ)/build-asan $(OQ)/build-tsan $(OQ)/build-fuzz $(OQ)/mutate
