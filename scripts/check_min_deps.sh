#!/usr/bin/env bash
# Lowest-versions check: install every dependency at the lower bound pyproject.toml allows (">=X" becomes "==X",
# test and oauth extras included) into a fresh venv, then run the tests (all of them by default, or the pytest
# arguments given). A bound that is too low fails here instead of on a user's machine.
#
#   bash scripts/check_min_deps.sh                                  # whole suite (long: like .ci/run)
#   bash scripts/check_min_deps.sh tests/pipeline tests/review -x   # a part of it
#
# Needs the same Python as the tests (python3.11) and PyPI; PostgreSQL and Dovecot as for the normal suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
VENV="${VENV:-.venv-min}"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
. "$VENV/bin/activate"
python - <<'PY' > "$VENV/min-constraints.txt"
import re, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
reqs = project["dependencies"] + [r for extra in ("test", "oauth") for r in project["optional-dependencies"][extra] if not r.startswith("orienta")]
for req in reqs:
    m = re.match(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*>=\s*([^,;\s]+)", req)
    if m:
        print(f"{m.group(1)}=={m.group(3)}")
PY
echo "lowest allowed versions:"; sed 's/^/  /' "$VENV/min-constraints.txt"
pip install -q torch==2.13.0
pip install -q -c "$VENV/min-constraints.txt" -e ".[test]"
pip check
python -m pytest -q "$@"
