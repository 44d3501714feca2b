#!/usr/bin/env bash
# Highest-versions check, the twin of check_min_deps.sh: a fresh venv resolves every dependency to the highest
# version pyproject.toml allows (test and oauth extras included), the versions of the bounded libraries are shown
# and checked against their bounds, then the tests run (all of them by default, or the pytest arguments given).
# An upper bound that lets in a version the code cannot run on fails here instead of on a fresh install.
#
#   bash scripts/check_max_deps.sh                                  # whole suite (long: like .ci/run)
#   bash scripts/check_max_deps.sh tests/pipeline tests/servers -x  # a part of it
#
# Needs the same Python as the tests (python3.11) and PyPI; PostgreSQL and Dovecot as for the normal suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
VENV="${VENV:-.venv-max}"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
. "$VENV/bin/activate"
pip install -q torch==2.13.0  # the CPU build check_min_deps.sh uses: sentence-transformers would pull a CUDA one
pip install -q -e ".[test]"
pip check
python - <<'PY'
import re, tomllib
from importlib.metadata import version
from packaging.requirements import Requirement
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
bounded = [Requirement(r) for r in project["dependencies"] if re.search(r"<\s*\d", r)]
print("highest allowed versions (bounded libraries):")
outside = []
for req in bounded:
    have = version(req.name)
    print(f"  {req.name}=={have}  ({req.specifier})")
    if have not in req.specifier:
        outside.append(f"{req.name} {have} not in {req.specifier}")
assert not outside, outside
PY
python -m pytest -q "$@"
