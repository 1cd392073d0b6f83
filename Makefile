# The course's commands. `make course` and `make test` do all set-up themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
# Offline machines of this project keep MNIST beside the repo; elsewhere the
# data step looks in data/, the Keras cache, then downloads it.
MNIST ?= $(wildcard ../shared/data/mnist.npz)
DATA_ARGS := $(if $(MNIST),--mnist $(MNIST)) $(if $(MNIST_C),--mnist-c $(MNIST_C))
ASSIGNMENT ?= 04_bayesian_cnn
SUBMISSIONS ?= submitted

.PHONY: course test lab data release validate grade bench clean

course: $(VENV)/.installed data release
	$(PY) -m autograder selfgrade

test: $(VENV)/.installed data
	$(PY) -m pytest

lab: $(VENV)/.installed data
	$(VENV)/bin/jupyter lab

data: $(VENV)/.installed
	$(PY) -m bdl.data prepare $(DATA_ARGS)

release: $(VENV)/.installed
	$(PY) -m autograder release

validate: $(VENV)/.installed data
	$(PY) -m autograder validate

grade: $(VENV)/.installed data
	$(PY) -m autograder grade $(ASSIGNMENT) $(SUBMISSIONS)

bench: $(VENV)/.installed data
	$(PY) -m autograder bench $(ASSIGNMENT)

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	touch $@

clean:
	rm -rf $(VENV) gradebook.db submitted submitted_replaced autograded feedback grades.csv grading_status reports
	find data -mindepth 1 ! -name README.md -exec rm -rf {} +
