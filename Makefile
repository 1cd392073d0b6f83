# The course's commands. `make course` and `make test` do all set-up themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
# Offline machines of this project keep MNIST beside the repo; elsewhere the
# data step looks in data/, the Keras cache, then downloads it.
MNIST ?= $(wildcard ../shared/data/mnist.npz)
DATA_ARGS := $(if $(MNIST),--mnist $(MNIST)) $(if $(MNIST_C),--mnist-c $(MNIST_C))
ASSIGNMENTS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard source/*/*.ipynb)))))
# Jupyter refuses to run as root (containers, many course servers) without this.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# Where `make kit` writes the student kit (a folder and KIT.zip); THROUGH=NN: only up to assignment NN.
KIT ?= build/student-kit

.PHONY: course test test-fast lint format lab data release validate grade grade-arguments bench bench-arguments kit hub screenshots constraints clean

# Each step says what it does; pip and selfgrade show their progress as they go.
course: $(VENV)/.installed data release
	@echo "make course: grading each assignment's reference solution and blank release (minutes; a line as each is done)"
	$(PY) -m autograder selfgrade

# Two pytest workers: much of the suite waits on subprocesses and kernels, so
# two overlap well even on 2 cores. A notebook's cells, and a test module's
# shared fixtures, stay on one worker (loadscope); tests/conftest.py puts long work first.
TEST_WORKERS ?= 2
PARALLEL := -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder
# More pytest arguments, e.g. PYTEST_ARGS='-m "not root and not browser"' (all but the
# hub, which needs root, and the tests that drive Chromium), or a tier: PYTEST_ARGS=tests/unit.
PYTEST_ARGS ?=

# Everything: tests/{unit,course,system} and every notebook (nbval) in full mode.
test: $(VENV)/.installed data
	$(PY) -m pytest $(PARALLEL) $(PYTEST_ARGS)

# The inner loop: everything but full-mode notebook runs; notebooks run in fast mode.
test-fast: $(VENV)/.installed data
	BDL_FAST=1 $(PY) -m pytest $(PARALLEL) -m "not slow" $(PYTEST_ARGS)

# ruff on the repository's Python, with pyproject.toml's [tool.ruff] rules, its layout (ruff format),
# mypy on the process contracts ([tool.mypy]) and lint-imports on the import rules ([tool.importlinter]; no
# cache: it takes a fraction of a second, and leaves no folders in the tree);
# make test and make test-fast run the same checks (tests/unit/test_lint_python.py, tests/unit/test_structure.py).
lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports --no-cache --no-logo

# Formats every Python file as `make lint` and the tests expect (ruff format).
format: $(VENV)/.installed
	$(PY) -m ruff format .

# JupyterLab with nbgrader's extensions in the course directory; it prints the
# URL to open, token included.
lab: $(VENV)/.installed data
	$(VENV)/bin/jupyter lab $(ALLOW_ROOT)

data: $(VENV)/.installed
	$(PY) -m bdl.data prepare $(DATA_ARGS)

release: $(VENV)/.installed
	@echo "make: generating release/ from source/ with nbgrader ($(words $(ASSIGNMENTS)) assignments, about 20 s)"
	$(PY) -m autograder release

validate: $(VENV)/.installed data
	$(PY) -m autograder validate

# Checked before any set-up, so a newcomer learns at once what to pass.
grade-arguments:
	@test -n "$(ASSIGNMENT)" -a -n "$(SUBMISSIONS)" || { echo "make grade: say what to grade:" \
	  "make grade ASSIGNMENT=<one of: $(ASSIGNMENTS)> SUBMISSIONS=<notebooks, folders or zips>" >&2; exit 2; }

bench-arguments:
	@test -n "$(ASSIGNMENT)" || { echo "make bench: say which assignment:" \
	  "make bench ASSIGNMENT=<one of: $(ASSIGNMENTS)>" >&2; exit 2; }

grade: grade-arguments $(VENV)/.installed data
	$(PY) -m autograder grade $(ASSIGNMENT) $(SUBMISSIONS)

bench: bench-arguments $(VENV)/.installed data
	$(PY) -m autograder bench $(ASSIGNMENT)

# What students get: release notebooks, bdl, data recipe, pinned install files, companions.
kit: $(VENV)/.installed
	$(PY) -m autograder student-kit $(KIT) $(if $(THROUGH),--through $(THROUGH))

# The course on a JupyterHub on this machine, as root (README, "The course on a JupyterHub"):
# STUDENTS=roster.csv makes the roster's accounts; HUB_ARGS passes any other option of `hub`.
hub: $(VENV)/.installed data
	$(PY) -m autograder hub $(if $(STUDENTS),--students $(STUDENTS)) $(HUB_ARGS)

# docs/images/*.png, taken by the browser tests as they pass the steps they show (the tests marked
# `screenshots`; the hub's needs root): written to $(SHOTS) first, copied over the old ones only if
# every one was made. Chromium, bubblewrap, nodejs and npm must be installed (CI=true: a missing one fails).
SCREENSHOTS := assignment-list validate formgrader feedback-likely-mistake hub-signup-approval
SHOTS := build/screenshots
screenshots: $(VENV)/.installed data
	rm -rf $(SHOTS)
	BDL_SCREENSHOTS="$(CURDIR)/$(SHOTS)" CI=true $(PY) -m pytest -p no:xdist -m screenshots tests
	@for name in $(SCREENSHOTS); do test -f "$(SHOTS)/$$name.png" || \
	  { echo "make screenshots: no $$name.png: its test did not get that far" >&2; exit 1; }; done
	mkdir -p docs/images && cp $(patsubst %,"$(SHOTS)/%.png",$(SCREENSHOTS)) docs/images/
	@ls -l $(patsubst %,docs/images/%.png,$(SCREENSHOTS))

# Every group of pyproject.toml: the students' dependencies, the instructor's, the hub's and the tests'.
# pip's own progress: a line per package, and a bar while it installs them, which pip 25.3 draws
# (Python 3.11's venv comes with pip 23, silent there). Without the newer pip (offline), the older one installs.
PIP ?= pip==25.3
# constraints.txt holds every package's version of the tested set: .venv, the student kit and the hub install with it.
$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check "$(PIP)" || echo "make: $(PIP) not installed; the venv's own pip shows no bar while it installs"
	@echo "make: installing the course's pinned packages into $(VENV): about 180 packages, 3 GB, a few minutes the first time"
	$(PY) -m pip install --disable-pip-version-check -c constraints.txt -e ".[instructor,hub,test]"
	touch $@

# After a change of pins: constraints.txt anew, from `pip freeze` of a fresh install of every group (not .venv,
# which keeps packages that older pins brought). pip and setuptools are left out: each Python's venv brings its own.
# With the oldest Python 3.11 at hand (the system's, Debian 12's 3.11.2, before a pyenv one): a later one may
# choose versions an older cannot install (soupsieve 3 needs 3.11.5), which tests/unit/test_environment.py finds.
CONSTRAINTS_VENV := build/constraints-venv
CONSTRAINTS_PYTHON ?= $(firstword $(wildcard /usr/bin/python3.11) $(PYTHON))
constraints:
	rm -rf $(CONSTRAINTS_VENV) && $(CONSTRAINTS_PYTHON) -m venv $(CONSTRAINTS_VENV)
	$(CONSTRAINTS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e ".[instructor,hub,test]"
	{ echo "# Every package of the course's tested set at its version: pip freeze of a fresh install of pyproject.toml's"; \
	  echo "# pins (make constraints). pip install -c constraints.txt installs these versions and no others."; \
	  $(CONSTRAINTS_VENV)/bin/python -m pip freeze --all --exclude-editable | grep -viE '^(pip|setuptools)=='; } > constraints.txt
	rm -rf $(CONSTRAINTS_VENV)

clean:
	rm -rf $(VENV) .ruff_cache .mypy_cache gradebook.db exchange submitted submitted_replaced autograded feedback grades.csv grading_status reports guides $(KIT) $(KIT).zip test-artifacts
	find data -mindepth 1 ! -name README.md -exec rm -rf {} +
