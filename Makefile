# The two commands of the README: `make run` and `make test`. Both create .venv and are idempotent.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
ARGS ?=

.PHONY: run test lint typecheck pytest install install-dev bench data eval-sources loso model model-sources model-joined model-int8 render clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found %s)" % sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: $(VENV)/.installed
	$(BIN)/scorekeeper serve --host $(HOST) --port $(PORT) $(ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# The minutes-long solver cross-checks run too; `make test SCOREKEEPER_SLOW_TESTS=0` skips them.
SCOREKEEPER_SLOW_TESTS ?= 1
export SCOREKEEPER_SLOW_TESTS

pytest: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

test: lint typecheck pytest

bench: $(VENV)/.installed
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# Other sources' labelled dice photos (DATA.md), each at its pinned commit, converted into
# labelled folders under DATA, outside the repository: cloned from GitHub, or read from local
# copies (MIRRORS: a folder of OWNER+NAME git folders). `make eval-sources` then prints the
# reader's figures on each source, the shared sets' held-out photos beside them.
DATA ?= ../dice-extra
MIRRORS ?=
SHARED ?= ../shared/dice-data
data: $(VENV)/.installed
	$(BIN)/python -m training.fetch_data --out $(DATA) $(if $(MIRRORS),--mirrors $(MIRRORS))

eval-sources: $(VENV)/.installed
	$(BIN)/python -m training.eval_sources --data $(DATA) --shared $(SHARED)

# Leave-one-source-out (training/loso.py): for each source in DATA, the base model's second look
# fine-tuned without it, measured on all of it (LOSO_ARGS, e.g. --sources wood-stone; with
# --scratch --backbone lite0 the Lite0 look of model-joined).
loso: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(BIN)/python -m training.loso --extra $(DATA) --shared $(SHARED) $(LOSO_ARGS)

# Train the dice reader (under three hours on two CPU cores) and export models/dice.onnx: stage 1
# from scratch, stages 2 and 3 fine-tune the detector with more background crops (frozen batch
# norm); then the second look is trained on the detector's candidates, fine-tuned on candidates
# from scenes with decoys (spots, beads, coins) and dice whose pips stand out by colour only
# (red pips on a smoky die), exported with the detector, its thresholds chosen on synthetic
# scenes (build/dice-float.onnx); then model-int8 into the base model, models/dice-base.onnx;
# last, model-joined (which needs make data's photos), its patches mined again by the new base.
model: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(BIN)/python -m training.train --seed $(or $(SEED),0) --no-eval --out build/dice-stage1.onnx
	$(BIN)/python -m training.train --seed 1 --init-onnx build/dice-stage1.onnx --steps 1800 \
		--lr 1e-3 --focus 0.5 --no-eval --out build/dice-stage2.onnx
	$(BIN)/python -m training.train --seed 2 --init-onnx build/dice-stage2.onnx --steps 5000 \
		--stop-after 2000 --lr 5e-4 --focus 0.6 --no-eval --out build/dice-stage3.onnx
	$(BIN)/python -m training.patch_data --detector build/dice-stage3.onnx --synth 4000 \
		--decoy-share 0 --colour-pips 0 --out build/patches.npz
	$(BIN)/python -m training.train_patch --patches build/patches.npz \
		--detector build/dice-stage3.onnx --steps 8000 --no-eval --out build/dice-two-stage-base.onnx
	$(BIN)/python -m training.patch_data --detector build/dice-stage3.onnx --synth 4000 \
		--decoy-share 0.6 --colour-pips 0.3 --out build/patches-decoys.npz
	$(BIN)/python -m training.train_patch --patches build/patches-decoys.npz \
		--detector build/dice-stage3.onnx --init-onnx build/dice-two-stage-base.onnx --seed 1 \
		--steps 2000 --lr 5e-4 --warmup 0.1 --no-eval --out build/dice-two-stage.onnx
	$(BIN)/python -m training.tune_thresholds --model build/dice-two-stage.onnx --write
	cp build/dice-two-stage.onnx build/dice-float.onnx
	$(MAKE) model-int8
	rm -rf build/final
	$(MAKE) model-joined

# The first half of the shipped file: the base model (BASE) with its second look fine-tuned on
# every source in DATA but the outside checks (DATA.md), and FINAL_ARGS (e.g. --also DIR for
# rendered scenes; the recipe `make loso` measures), then int8 with the detector as it is (already rounded to int8), into OUT.
BASE ?= models/dice-base.onnx
OUT ?= build/dice-sources.onnx
FINAL_ARGS ?= --steps 200
model-sources: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(BIN)/python -m training.loso --base $(BASE) --extra $(DATA) --shared $(SHARED) \
		$(FINAL_ARGS) --work build/final --final build/dice-sources-float.onnx
	$(MAKE) model-int8 FLOAT=build/dice-sources-float.onnx \
		PATCHES=build/dice-sources-float.patches.npz DET_QAT=0 INT8_OUT=$(OUT)

# The shipped file, models/dice.onnx (about half an hour on two cores): model-sources, and a second
# look built from EfficientNet-Lite0's first stages (training/lite_patch.py) trained from its
# ImageNet weights on the same patches (LITE_ARGS), the two looks' log-probabilities averaged in
# one file (training/ensemble.py) with the base's detector and thresholds, then the Lite0 look
# (the joined file's /b/patch/ nodes but its first, float, convolution) quantized to int8, weights
# per channel. Fetches make data's photos first when DATA has none.
LITE_ARGS ?= --steps 1500 --batch 128 --lr 1e-3
LITE_INT8 ?= --only /b/patch/ --per-channel --keep /b/patch/Sub --keep /b/patch/Mul \
	--keep /b/patch/features/features.0/
model-joined: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(if $(wildcard $(DATA)/wood-stone),,$(MAKE) data)
	$(MAKE) model-sources
	$(BIN)/python -m training.loso --base $(BASE) --extra $(DATA) --shared $(SHARED) --scratch \
		--backbone lite0 $(LITE_ARGS) --work build/final --final build/lite0-final.onnx
	$(BIN)/python -m training.ensemble --join $(OUT) build/lite0-final.onnx --out build/dice-joined.onnx
	$(BIN)/python -m training.quantize --model build/dice-joined.onnx $(LITE_INT8) --data $(SHARED) \
		--out models/dice.onnx
	$(BIN)/python -m training.train --eval-only models/dice.onnx

# The second step of `make model`, from the float model it leaves in build/dice-float.onnx (and
# the second look's patches, build/patches-decoys.npz): its detector fine-tuned for about twenty
# minutes under simulated int8 to match its own float maps, paired with its second look, which
# is fine-tuned the same way to match its own probabilities (about thirteen minutes), both
# quantized by onnxruntime into models/dice-base.onnx, then the held-out figures printed. Each
# network's input scaling and first convolution (one and three input channels: slower in int8
# than in float) stay in float.
PATCHES ?= build/patches-decoys.npz
FLOAT ?= build/dice-float.onnx
INT8_OUT ?= models/dice-base.onnx
DET_QAT ?= 1
QAT_DETECTOR := $(if $(filter 0,$(DET_QAT)),$(FLOAT),build/dice-qat.onnx)
model-int8: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(if $(filter 0,$(DET_QAT)),@echo "detector kept as it is (DET_QAT=0)",$(BIN)/python -m training.train \
		--init-onnx $(FLOAT) --teacher $(FLOAT) --fake-quant \
		--float-layer stem --distill-only --seed 9 --steps 2500 --lr 5e-5 --focus 0.6 --no-eval \
		--out build/dice-qat.onnx)
	$(BIN)/python -m training.train_patch --detector $(QAT_DETECTOR) \
		--init-onnx $(FLOAT) --steps 0 --no-eval --out build/dice-qat-pair.onnx
	$(BIN)/python -m training.train_patch --patches $(PATCHES) \
		--detector $(QAT_DETECTOR) --init-onnx build/dice-qat-pair.onnx --fake-quant \
		--float-layer features.0 --distill-only --seed 10 --steps 1500 --lr 5e-5 --warmup 0.1 \
		--no-eval --out build/dice-qat-look.onnx
	$(BIN)/python -m training.quantize --model build/dice-qat-look.onnx \
		--keep /det/net/Sub --keep /det/net/Mul --keep /stem/ \
		--keep /patch/Sub --keep /patch/Mul --keep /patch/features/features.0/ \
		--out $(INT8_OUT)
	$(BIN)/python -m training.train --eval-only $(INT8_OUT)

# Physically rendered dice (training/render.py: Blender's Cycles on the CPU through bpy, which
# needs Python 3.11 and its own environment, .venv-render, kept apart from .venv and CI):
# RENDER_COUNT seeded scenes into RENDER_OUT, outside the repo, in make data's layout, at the
# lowest CPU priority on one thread, laid out as RENDER_LAYOUT (apart, steep: the camera 40-68°
# off vertical, heap: 8-20 dice close together). Resume with RENDER_ARGS='--start N'.
RENDER_PYTHON ?= python3.11
RENDER_VENV ?= .venv-render
RENDER_OUT ?= ../rendered-dice
RENDER_COUNT ?= 300
RENDER_SEED ?= 0
RENDER_LAYOUT ?= apart
RENDER_ARGS ?=
BPY_VERSION ?= 4.5.15
$(RENDER_VENV)/.installed:
	$(RENDER_PYTHON) -m venv $(RENDER_VENV)
	$(RENDER_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RENDER_VENV)/bin/python -m pip install --quiet bpy==$(BPY_VERSION)
	@touch $@

render: $(RENDER_VENV)/.installed
	nice -n 19 $(RENDER_VENV)/bin/python -m training.render --out $(RENDER_OUT) \
		--count $(RENDER_COUNT) --seed $(RENDER_SEED) --layout $(RENDER_LAYOUT) --threads 1 $(RENDER_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
