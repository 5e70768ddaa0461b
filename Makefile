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

.PHONY: test lint typecheck pytest serve venv dist train-deps test-train train-gpu train-gpu-run test-labelstudio test-labelstudio-ml clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# ray (hupai label --engine ray): ~80 MB download, 240 MB installed, ~15 s; its test takes ~13 s.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[dev,ray]'
	rm -f $(VENV)/.stamp-*
	touch $@

venv: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# mypy cannot follow pyproject's package-dir (scoring/ is hupai.scoring): it reads the folders
# through a tree of links laid out as installed, rebuilt each run (build/ is ignored).
TYPECHECK_TREE := build/typecheck
typecheck: $(STAMP)
	rm -rf $(TYPECHECK_TREE) && mkdir -p $(TYPECHECK_TREE)/hupai
	for entry in hupai/*; do ln -s "$(CURDIR)/$$entry" $(TYPECHECK_TREE)/hupai/; done
	for folder in scoring vision datasets service ledger models; do \
		ln -s "$(CURDIR)/$$folder" $(TYPECHECK_TREE)/hupai/$$folder; done
	cd $(TYPECHECK_TREE) && $(abspath $(VENV))/bin/mypy --config-file $(CURDIR)/pyproject.toml \
		-p hupai.scoring -p hupai.ledger -p hupai.cli -p hupai.commands -p hupai.labeling \
		-p hupai.training -p hupai.evaluation

# Debian packages the tests use, installed when missing and apt-get can be used (otherwise the
# tests that need them are skipped, saying why): Chromium for the page's browser test
# (Playwright drives it; it downloads no browser), a CJK font so that the page's 萬/筒/中 are
# drawn, and PostgreSQL for the ledger's tests against a real server.
DEBIAN_NEEDS := /usr/bin/chromium:chromium \
	/usr/share/fonts/truetype/wqy/wqy-microhei.ttc:fonts-wqy-microhei \
	/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:fonts-dejavu-core \
	/usr/bin/pg_ctlcluster:postgresql
.PHONY: debian-packages
debian-packages:
	@missing=""; for need in $(DEBIAN_NEEDS); do \
		[ -e "$${need%%:*}" ] || missing="$$missing $${need#*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then sudo=""; \
	elif sudo -n true 2>/dev/null; then sudo="sudo"; \
	else echo "cannot install$$missing here; the tests that need them will be skipped"; exit 0; fi; \
	($$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $$missing) || echo "apt-get failed for$$missing"

pytest: $(STAMP) debian-packages
	$(VENV)/bin/pytest tests scoring vision datasets service hupai ledger -n 2 -m "not train and not labelstudio"

test: lint typecheck pytest

serve: $(STAMP)
	$(VENV)/bin/hupai serve --host $(HOST) --port $(PORT)

# CJK fonts the procedural tile faces are set in (datasets/synth/faces.py: FONTS, licenses in
# FONT_PACKAGES; DejaVu for the Latin of captions and flowers) and the drawn clutter's text
# (datasets/clutter.py: FONT_FILES, microhei and DejaVu); their tests are skipped, saying
# which, where they are missing.
FONT_NEEDS := /usr/share/fonts/truetype/arphic/ukai.ttc:fonts-arphic-ukai \
	/usr/share/fonts/truetype/arphic/uming.ttc:fonts-arphic-uming \
	/usr/share/fonts/truetype/cwtex/cwkai.ttf:fonts-cwtex-kai \
	/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf:fonts-lxgw-wenkai \
	/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc:fonts-noto-cjk \
	/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc:fonts-wqy-zenhei \
	/usr/share/fonts/truetype/wqy/wqy-microhei.ttc:fonts-wqy-microhei \
	/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf:fonts-dejavu-core \
	/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf:fonts-ipafont-mincho \
	/usr/share/fonts/truetype/hanazono/HanaMinA.ttf:fonts-hanazono \
	/usr/share/fonts/truetype/klee/KleeOne-Regular.ttf:fonts-klee
.PHONY: synth-fonts
synth-fonts:
	@$(MAKE) --no-print-directory debian-packages DEBIAN_NEEDS="$(FONT_NEEDS)"

# The sdist and the wheel (models, page and credits inside) in dist/: `pip install
# dist/hupai-*.whl` (or pipx) then `hupai serve`, no checkout needed.
dist: $(STAMP)
	rm -rf dist build/lib
	$(PY) -m build --outdir dist .  # the sdist, then the wheel built from it

# Training needs torch + ultralytics (several GB); not part of `make test` or CI.
train-deps: $(STAMP) synth-fonts
	$(PIP) install -q -e '.[dev,ray,train]'

# A few training steps on tiny synthetic scenes, export, and a read through the runtime.
test-train: train-deps
	$(VENV)/bin/pytest tests/vision/test_train_smoke.py tests/vision/test_distill_smoke.py \
		tests/hupai/test_retrain_train.py tests/hupai/test_gpu_recipe.py -m train -p no:cacheprovider

# The GPU recipe (docs/training-gpu.md). Here: pack what a GPU run needs into $(GPU_PACK)
# (≤ 64 MiB: the real set re-encoded, wheels, faces cache, font subsets). There (a GPU machine
# with torch and no registry), from the repository root with the pack beside it:
# `make train-gpu-run OUT=dir` — ≤ 9 minutes, finder.onnx + namer.onnx + logs in dir.
GPU_PACK ?= build/gpu-pack
GPU_LINKS ?= /tmp/hupai-links
# the finder a run fine-tunes (local: runs/ is not in git); none — trained from scratch
FINDER_INIT ?= $(wildcard runs/finder-v6b/weights/best.pt)
train-gpu: train-deps
	$(PY) -m hupai.training.gpu pack --out $(GPU_PACK) --real data/real \
		$(if $(FINDER_INIT),--finder-init $(FINDER_INIT))

# hupai itself is installed editable — or, where the machine's setuptools is older than
# pyproject.toml needs (77), pyproject's package-dir mapping goes on PYTHONPATH as links.
train-gpu-run:
	@test -n "$(OUT)" || { echo "usage: make train-gpu-run OUT=folder [GPU_PACK=$(GPU_PACK)]"; exit 2; }
	python3 -m pip install -q --no-index --no-deps --no-compile $(GPU_PACK)/wheels/*.whl
	rm -rf $(GPU_LINKS)
	python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . || { \
		mkdir -p $(GPU_LINKS)/hupai && \
		ln -s $(CURDIR)/hupai/* $(GPU_LINKS)/hupai/ && \
		for d in scoring vision datasets ledger service models; do \
			ln -s $(CURDIR)/$$d $(GPU_LINKS)/hupai/$$d; done; }
	HUPAI_FACE_FONTS=$(abspath $(GPU_PACK))/fonts YOLO_OFFLINE=1 PYTHONUNBUFFERED=1 \
		PYTHONPATH=$(GPU_LINKS) python3 -m hupai.training.gpu run --pack $(GPU_PACK) --out $(OUT)

# The labelling loop against a real Label Studio on loopback (its own virtual environment:
# label-studio pins its own Django stack; ~400 MB, a few minutes the first time).
LS_VENV ?= .venv-ls
$(LS_VENV)/bin/label-studio:
	$(PYTHON) -m venv $(LS_VENV)
	$(LS_VENV)/bin/pip install -q "label-studio==1.23.2"

test-labelstudio: $(STAMP) $(LS_VENV)/bin/label-studio
	HUPAI_LABEL_STUDIO=$(abspath $(LS_VENV))/bin/label-studio $(VENV)/bin/pytest \
		tests/datasets/test_labelstudio_live.py -m labelstudio -p no:cacheprovider

# The ML backend against a real Label Studio on loopback: connected in a project's Model
# settings, tasks opened (predictions), annotations (webhooks), Start Training (a small retrain:
# needs the train extra for the retraining to end "done"). Writes no fixtures; to record them
# again: python tests/hupai/labelstudio_ml_live.py --label-studio $(LS_VENV)/bin/label-studio \
#   --write-fixtures tests/hupai/fixtures/labelstudio_ml
test-labelstudio-ml: $(STAMP) $(LS_VENV)/bin/label-studio
	HUPAI_LABEL_STUDIO=$(abspath $(LS_VENV))/bin/label-studio $(VENV)/bin/pytest \
		tests/hupai/test_labelstudio_ml_live.py -m labelstudio -p no:cacheprovider

clean-venv:
	rm -rf $(VENV)
