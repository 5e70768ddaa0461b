# hupai — two set-up commands: `make serve` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HOST ?= 127.0.0.1
PORT ?= 8000
# Installs are stamped with the pyproject.toml they came from, so a rerun is quick.
STAMP := $(VENV)/.stamp-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: test lint typecheck pytest serve venv train-deps test-train clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# ray (hupai label --engine ray): ~80 MB download, 240 MB installed, ~15 s; its test takes ~13 s.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[vision,service,ledger,dev,ray]'
	rm -f $(VENV)/.stamp-*
	touch $@

venv: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy scoring hupai

# Debian's Chromium for the page's browser test (Playwright drives it; it downloads no browser).
# Installed when missing and apt-get can be used; otherwise that test is skipped, saying why.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends chromium) || echo "chromium: apt-get failed"; \
	elif sudo -n true 2>/dev/null; then \
		(sudo apt-get update -q && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends chromium) || echo "chromium: apt-get failed"; \
	else echo "chromium: cannot install it here; the browser test will be skipped"; fi

pytest: $(STAMP) | $(CHROMIUM)
	$(VENV)/bin/pytest tests scoring vision datasets service hupai -n 2 -m "not train"

test: lint typecheck pytest

serve: $(STAMP)
	$(VENV)/bin/hupai serve --host $(HOST) --port $(PORT)

# Training needs torch + ultralytics (several GB); not part of `make test` or CI.
train-deps: $(STAMP)
	$(PIP) install -q -e '.[vision,service,ledger,dev,ray,train]'

# A few training steps on tiny synthetic scenes, export, and a read through the runtime.
test-train: train-deps
	$(VENV)/bin/pytest tests/vision/test_train_smoke.py -m train -p no:cacheprovider

clean-venv:
	rm -rf $(VENV)
