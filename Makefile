# Thin wrapper over CMake: the usual words. The build of record is CMakeLists.txt.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# CI builds treat warnings as errors.
ifeq ($(CI),true)
CMAKE_FLAGS += -DTP_WERROR=ON
endif

.PHONY: all test bench asan fuzz clean format format-check goldens accuracy

all:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: all
	@for b in $(BUILD)/bench_*; do [ -x "$$b" ] && "$$b" || exit 1; done

# The files the tests compare with the program's own output (export goldens,
# the man page's flag sections, the hostile table), rewritten from this
# build and the diff shown; after a deliberate output change only
# (docs/TESTING.md).
goldens: all
	tools/regen-goldens.sh $(BUILD)/trainplan

# Every figure of docs/ACCURACY.md's first part, from this build (a minute
# or two: each held-out fold is a fit): the in-sample table (checked against
# the page), one source family and one framework held out, the bins by size,
# GPUs, GPU type and MoE, and the llm-foundry rows no fit has seen.
ACC_TMP ?= $(BUILD)/accuracy
accuracy: all
	@mkdir -p $(ACC_TMP)
	python3 tools/accuracy_table.py --trainplan $(BUILD)/trainplan check docs/ACCURACY.md
	$(BUILD)/trainplan validate data/runs/runs-dev.csv | tail -4
	python3 tools/calibrate.py --trainplan $(BUILD)/trainplan --profiles --cv --cv-json $(ACC_TMP)/family.json
	python3 tools/calibrate.py --trainplan $(BUILD)/trainplan --profiles --cv --cv-by framework --cv-json $(ACC_TMP)/framework.json
	python3 tools/calibrate_bins.py $(ACC_TMP)/family.json
	$(BUILD)/trainplan validate data/runs/heldout-llmfoundry.csv | tail -4
	python3 tools/calibrate.py --trainplan $(BUILD)/trainplan --profiles --heldout data/runs/heldout-llmfoundry.csv

asan:
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTP_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer (issue 8): every tests/fuzz/fuzz_NAME.c, built with clang into
# $(FUZZ_BUILD)/ and run FUZZ_SECONDS on FUZZ_JOBS jobs (2) over a copy of its corpus
# (tests/fuzz/corpus/NAME, which it never writes). New inputs stay in
# $(FUZZ_BUILD)/corpus/NAME, crashes in $(FUZZ_BUILD)/crashes/NAME/, logs in
# $(FUZZ_BUILD)/logs/NAME/. FUZZ_TARGETS="csv ..." picks some. See docs/RELIABILITY.md.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 2
FUZZ_CC ?= clang
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1
FUZZ_ABS = $(abspath $(FUZZ_BUILD))

fuzz:
	@CC=$(FUZZ_CC) cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTP_WEB=OFF \
	  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target tpfuzzcli tpweb_core >/dev/null
	@set -e; for t in $(FUZZ_TARGETS); do \
	  $(FUZZ_CC) -std=c11 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer $(FUZZ_SAN) \
	    -Iinclude -Isrc/io -Isrc/cli -Isrc/web -Itests/fuzz $$(pkg-config --cflags jansson) \
	    tests/fuzz/fuzz_$$t.c $(FUZZ_BUILD)/libtpweb_core.a $(FUZZ_BUILD)/libtpfuzzcli.a $(FUZZ_BUILD)/libtpio.a \
	    $(FUZZ_BUILD)/libtp.a $$(pkg-config --libs jansson) -lm -o $(FUZZ_BUILD)/fuzz_$$t; \
	done
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/crashes/$$t $(FUZZ_BUILD)/logs/$$t; \
	  cp -R tests/fuzz/corpus/$$t/. $(FUZZ_BUILD)/corpus/$$t/; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s, $(FUZZ_JOBS) jobs"; \
	  (cd $(FUZZ_BUILD)/logs/$$t && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(FUZZ_ABS)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS) -timeout=10 \
	      -dict=$(CURDIR)/tests/fuzz/dict/$$t.dict -artifact_prefix=$(FUZZ_ABS)/crashes/$$t/ \
	      $(FUZZ_ABS)/corpus/$$t >/dev/null 2>&1 || true); \
	  tail -n 12 $(FUZZ_BUILD)/logs/$$t/fuzz-0.log | grep -E '^(stat::|Done|#)' || true; \
	done
	@if [ -n "$$(find $(FUZZ_BUILD)/crashes -type f 2>/dev/null)" ]; then \
	  echo "fuzz: crashes found:"; find $(FUZZ_BUILD)/crashes -type f; exit 1; fi
	@echo "fuzz: no crashes"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# The C style is .clang-format's (Debian 12's clang-format 14); CI runs
# format-check, which changes nothing and fails on any file that differs,
# or on a source file over 1,500 lines or a function over 200
# (tools/check-lengths.sh).
FORMAT_FILES = $(shell git ls-files '*.c' '*.h')
format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@rc=0; \
	clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files as .clang-format says" || rc=1; \
	tools/check-lengths.sh || rc=1; \
	exit $$rc
