# Entry points. README.md names two of them:
#   make run    set up, build (release) and run heraldd with no configuration
#   make test   set up, build and run every test: release, ASan+UBSan, TSan,
#               and every fuzz target for FUZZ_SECONDS
# Everything else here is for developers.
.PHONY: run test setup build build-server test-release test-asan test-tsan test-fuzz format format-check tidy fuzz clean example-backend run-with-backend

ARGS ?=
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere
# (as CI makes) reuses what an earlier build compiled.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
FUZZ ?= config_toml
SECONDS ?= 60
FUZZ_SECONDS ?= 20

setup:
	@scripts/setup.sh

build: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release

# Only what the server needs (heraldd and the web app it embeds): 168 of the
# release build's 389 steps, none of them tests or benchmarks. `make test`
# builds everything.
build-server: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release --target heraldd

run: build-server
	./build/release/apps/heraldd/heraldd $(ARGS)

# The example application backend (examples/backend, docs/backend.md) on
# 127.0.0.1:8001, and heraldd with its connect and rpc hooks pointed at it
# (two terminals); then sign in at http://127.0.0.1:8001/.
BACKEND_ARGS ?=
example-backend:
	node examples/backend/server.mjs $(BACKEND_ARGS)

run-with-backend: build-server
	./build/release/apps/heraldd/heraldd --proxy.connect_url http://127.0.0.1:8001/connect \
		--proxy.rpc_url http://127.0.0.1:8001/rpc \
		--proxy.subscribe_url http://127.0.0.1:8001/subscribe --rooms.subscribe_proxy true \
		--proxy.publish_url http://127.0.0.1:8001/publish --rooms.publish_proxy true $(ARGS)

# A tool the tests need that is missing stops the configure instead of
# leaving its tests out (cmake/HeraldTools.cmake).
test test-release test-asan test-tsan test-fuzz: export HERALD_REQUIRE_TOOLS = 1

test: setup test-release test-asan test-tsan test-fuzz
	@echo "all test suites passed (release, asan, tsan, fuzz)"

test-release: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release
	@ctest --preset release

test-asan: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan
	@ctest --preset asan

# TSan runs the tests labelled `threaded` (several shards or threads at once)
# and builds only what they need.
test-tsan: setup
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan --target threaded_tests
	@ctest --preset tsan

# Every libFuzzer target for FUZZ_SECONDS, after replaying its corpus and
# saved crashes (scripts/fuzz_all.sh). The asan build (clang, ASan+UBSan with
# libFuzzer's coverage) holds the fuzzers beside the tests, so the sources are
# compiled once for both.
test-fuzz: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan --target fuzzers
	@scripts/fuzz_all.sh build/asan $(FUZZ_SECONDS)

format: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release --target format

format-check: setup
	@cmake --preset release >/dev/null
	@cmake --build --preset release --target format-check

# clang-tidy with .clang-tidy's checks on src/ and apps/; any finding fails.
# Files unchanged since a clean run are skipped (scripts/tidy.py says how).
tidy: setup
	@cmake --preset release >/dev/null
	@scripts/tidy.py build/release '^$(CURDIR)/(src|apps)/'

# Runs one libFuzzer target for SECONDS; new interesting inputs go to a
# scratch corpus, crashes to the working directory (then: copy them into
# fuzz/crashes/<target>/ so ctest replays them forever).
fuzz: setup
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan --target fuzz_$(FUZZ)
	@mkdir -p build/asan/corpus/$(FUZZ)
	./build/asan/fuzz/fuzz_$(FUZZ) -max_total_time=$(SECONDS) build/asan/corpus/$(FUZZ) fuzz/corpus/$(FUZZ)

clean:
	rm -rf build
