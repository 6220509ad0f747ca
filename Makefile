# One entry point for people and CI. Every target creates the virtualenv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup deps run run-paigow run-display demo-pins test test-fast bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/python -m mypy >/dev/null || true  # fills mypy's cache (pyproject.toml: cache_dir); tests/architecture reports
	touch $(STAMP)

setup: $(STAMP)

## deps: the Debian packages the tests run for real (Mosquitto for the floor feed, PostgreSQL for
## the floor store, Chromium for the display, libfuse 3 for the power-cut tests' file system,
## libfaketime for the stepped-clock tests, strace for the kill and disk-fault tests of the journal),
## installed with apt-get only when missing, and /dev/fuse made if the kernel has FUSE but no node
## for it (a container). `make run` needs none of them.
DEBIAN_PACKAGES := mosquitto chromium openssl postgresql fuse3 libfuse3-3 faketime strace
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || true
	@[ -e /dev/fuse ] || [ "$$(id -u)" != 0 ] || mknod -m 666 /dev/fuse c 10 229 || true

## The web display of `make run` / `make run-paigow`: off unless HTTP is set, e.g.
## `make run HTTP=127.0.0.1:8080`, then open http://127.0.0.1:8080/ (dealer) and /scoreboard.
## PACE: seconds the simulated dealer waits before each move, so a person can watch.
HTTP ?=
PACE ?= 0.8
DISPLAY_ARGS = $(if $(HTTP),--http $(HTTP) --pace $(PACE))
## The simulated tables' demo PINs (written hashed to run/*.pin; a real table's never appear here).
DEALER_PIN ?= 1111
SUPERVISOR_PIN ?= 9999

## run: play 20 rounds of Baccarat on simulated devices (no hardware needed), on a fresh demo journal
run: $(STAMP) $(if $(HTTP),demo-pins)
	rm -f run/sim-baccarat.sqlite run/sim-baccarat.sqlite-wal run/sim-baccarat.sqlite-shm
	$(BIN)/tablehost run --profile hardware-profiles/tables/sim-baccarat.toml --rounds 20 --seed 1 --journal run/sim-baccarat.sqlite $(DISPLAY_ARGS)

## run-display: a whole simulated shoe of Baccarat to watch: dealer display http://127.0.0.1:8080/,
## scoreboard http://127.0.0.1:8080/scoreboard (demo PINs: dealer 1111, supervisor 9999)
run-display: HTTP = 127.0.0.1:8080
run-display: $(STAMP) demo-pins
	rm -f run/sim-baccarat.sqlite run/sim-baccarat.sqlite-wal run/sim-baccarat.sqlite-shm
	$(BIN)/tablehost run --profile hardware-profiles/tables/sim-baccarat.toml --rounds 80 --seed 1 --journal run/sim-baccarat.sqlite $(DISPLAY_ARGS)

demo-pins: $(STAMP)
	@mkdir -p run
	@echo $(DEALER_PIN) | $(BIN)/tablehost display pin dealer run/dealer.pin >/dev/null
	@echo $(SUPERVISOR_PIN) | $(BIN)/tablehost display pin supervisor run/supervisor.pin >/dev/null

## run-paigow: play 200 rounds of Pai Gow on simulated devices with faults injected, on a fresh demo journal
.PHONY: run-paigow
run-paigow: $(STAMP) $(if $(HTTP),demo-pins)
	rm -f run/sim-paigow.sqlite run/sim-paigow.sqlite-wal run/sim-paigow.sqlite-shm
	$(BIN)/tablehost run --profile hardware-profiles/tables/sim-paigow.toml --rounds 200 --seed 1 --journal run/sim-paigow.sqlite $(DISPLAY_ARGS)

## test: the whole suite, slow tests included, on PYTEST_WORKERS xdist workers. Most tests wait
## on pipes, sockets and the service's timers, so there are more workers than cores; each is sent
## one test at a time, the long ones first (tests/conftest.py: start_order). Bytecode is cached
## (PYTHONDONTWRITEBYTECODE unset) so that the many `python -m firmware_host` processes of the
## recovery tests, and every worker, do not compile the same modules again.
## On a fresh clone (no tests/__pycache__) the suite is collected once in one process first, so
## that pytest's rewritten test modules and the bytecode are written once, not by every worker at
## the same time (measured on 2 cores: collection 32 s of wall and 63 CPU-s cold, 24 s and 36 with
## this pass). A failing collection is left for the suite itself to report.
PYTEST_WORKERS ?= 6
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(PYTEST_WORKERS) --dist load --maxschedchunk 1 --durations=15
WARM_CACHES := [ -d tests/__pycache__ ] || PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -p no:xdist -p no:cacheprovider --collect-only -q >/dev/null || true
test: $(STAMP) deps
	@$(WARM_CACHES)
	$(PYTEST)

## test-fast: the suite without the slow tests
test-fast: $(STAMP) deps
	@$(WARM_CACHES)
	$(PYTEST) -m "not slow"

## lint-imports: the layers' import contracts (pyproject.toml [tool.importlinter]); tests/test_architecture.py runs it too
.PHONY: lint-imports
lint-imports: $(STAMP)
	$(BIN)/lint-imports --no-cache

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) run build *.egg-info
