# Two commands do all the set-up: `make lab` for students, `make test` for maintainers and CI.
# Both create .venv on first use and reinstall only when pyproject.toml or constraints.txt change.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(abspath $(VENV))/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888
COURSE_DIR ?= course
# nbgrader shells out to alembic, and the course script must resolve: the venv's bin goes first.
export PATH := $(BIN):$(PATH)

.PHONY: lab test release notebooks grade-demo system-deps benchmarks clean hub

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c constraints.txt --upgrade pip setuptools
	$(BIN)/python -m pip install --quiet --no-build-isolation -c constraints.txt -e '.[test]'
	@touch $(STAMP)

release: $(STAMP)
	$(BIN)/course release --course-dir $(COURSE_DIR)

# The student's copies live in the release folder JupyterLab serves: only missing ones are
# generated, so running `make lab` again never overwrites an answer. lab/ holds the student's
# lab configuration (Validate only, no instructor tools, widget state saved): see lab/README.md.
lab: $(STAMP)
	$(BIN)/course release --keep-existing --course-dir $(COURSE_DIR)
	@echo "Starting JupyterLab on the student copies in $(COURSE_DIR)/release (Ctrl-C stops it)."
	JUPYTER_CONFIG_PATH=$(abspath lab)$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH} \
	$(BIN)/jupyter lab --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port=$(PORT) \
	    --ServerApp.root_dir=$(abspath $(COURSE_DIR)/release) $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

system-deps:
	@bash .ci/system-deps

# A demo class on this machine (root): the users of deploy/hub/demo-roster.csv, the course
# released to nbgrader's exchange, JupyterHub at http://localhost:$(HUB_PORT)/ until Ctrl-C.
# docs/deploy.md has the recipe for a real server.
HUB_PORT ?= 8000
HUB_ASSIGNMENTS ?= 01_tensors
# The hub needs bubblewrap, Node.js and configurable-http-proxy only (deploy/hub/system-deps).
hub: $(STAMP)
	@bash deploy/hub/system-deps
	$(BIN)/python -m deploy.hub.demo --port $(HUB_PORT) $(HUB_ASSIGNMENTS)

# Three pytest workers on two cores: much of a test's time is waiting on a kernel start, a
# sandbox or a browser (a fresh clone's run with two used 17.9 CPU-minutes in 22.9 minutes,
# 39 % of the two cores); with three, pytest took 18 min 58 s instead of 20 min 41 s. Tests
# sharing a module fixture stay on one worker (xdist_group).
TEST_JOBS ?= 3
test: $(STAMP) system-deps
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadgroup $(PYTEST_ARGS)

notebooks: $(STAMP)
	$(BIN)/python -m authoring

# The demo course is built in $(COURSE_DIR)/demo (rebuilt from scratch each time).
grade-demo: $(STAMP)
	COURSE_DIR=$(COURSE_DIR) $(BIN)/python -m authoring.demo

benchmarks: $(STAMP)
	$(BIN)/python benchmarks/notebooks.py
	$(BIN)/python benchmarks/instruments.py

clean:
	rm -rf $(VENV) course
