# qualify — release qualification harness.
# `make qualify` and `make test` each install what they need (Debian -dev packages) first.

SWIFT ?= swift
# The C libraries the package wraps, and pkg-config to find them.
BUILD_DEPS = pkg-config libsqlite3-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libxml2-dev zlib1g-dev
# What the tests drive besides the package: the real browser for the HTML report, Python's
# `cryptography` for the independent OIDC and Capgo implementations, and venv for the real
# OpenID provider the `--stack` tests install from PyPI (django-oauth-toolkit), and the openssl
# command that encrypts a signing key for the attestation tests; jsonschema validates the SARIF
# output against the OASIS schema.
TEST_DEPS = chromium python3-cryptography python3-jsonschema python3-venv openssl $(ENGINE_DEPS)
# The real engines checklist item 3 renders in over W3C WebDriver: Chromium (Android's
# WebView) and WebKitGTK's MiniBrowser (iOS's WKWebView), headless under Xvfb.
ENGINE_DEPS = chromium chromium-driver webkit2gtk-driver xvfb

ARGS ?=

.PHONY: deps test-deps build qualify test bench mutants fuzz tsan lint format clean

deps:
	@./scripts/apt-install $(BUILD_DEPS)

test-deps: deps
	@./scripts/apt-install $(TEST_DEPS)

build: deps
	$(SWIFT) build

# The main job: qualify the bundled sample app on the prod channel against the embedded stack,
# item 3 in the real engines it installs.
qualify: build
	@./scripts/apt-install $(ENGINE_DEPS)
	.build/debug/qualify --channel prod $(ARGS)

# The tests' scratch folders, the apps they write and the browsers they start keep their
# temporary files in one folder of the run's, removed when it ends, whatever the outcome.
test: test-deps
	$(SWIFT) build --build-tests
	@scratch=$$(mktemp -d "$${TMPDIR:-/tmp}/qualify-tests-XXXXXX"); \
	TMPDIR=$$scratch $(SWIFT) test --skip-build; status=$$?; rm -rf "$$scratch"; exit $$status

# Speed and memory figures (release build); prints medians and ratios, asserts nothing.
bench: deps
	@./scripts/apt-install $(ENGINE_DEPS)
	$(SWIFT) build -c release --product qualify
	$(SWIFT) build -c release --product qualify-bench
	.build/release/qualify-bench

# Mutation testing of the harness (docs/mutants.md): every mutant of Mutants/catalogue.json
# must turn the verdict, every harmless refactor keep it; then MUTANTS_N generated mutants
# (default 200, half of the world's sources, half of the bundled apps' files) sampled with
# MUTANTS_SEED (default 1), MUTANTS_AREA=world|apps for one half. Rebuilds a scratch copy per
# source mutant: tens of minutes, not part of `make test`.
MUTANTS_FLAGS ?=
mutants: deps
	$(SWIFT) build --product qualify-mutants
	.build/debug/qualify-mutants $(CURDIR) $(MUTANTS_FLAGS)

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Tools Package.swift

format:
	$(SWIFT) format format --in-place --recursive Sources Tests Benchmarks Tools Package.swift

clean:
	rm -rf .build Reports/runs Reports/latest.html Reports/qualify.sqlite*

# libFuzzer + AddressSanitizer over every reader of untrusted input (docs/fuzzing.md):
# FUZZ_RUNS executions per target (default 100000), FUZZ_TARGETS to pick some.
fuzz: deps
	Tools/fuzz.sh

# The whole test suite under ThreadSanitizer, in its own build folder (docs/fuzzing.md):
# any data race it reports fails the run.
tsan: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan
