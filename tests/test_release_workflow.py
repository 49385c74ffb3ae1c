"""The release workflow: a version tag only, credentials only where they are used.

Parsed, as the leaderboard workflows are (tests/test_ci_trust_boundary.py, whose checker
runs on it too): it runs on ``v*`` tags and on nothing a pull request can trigger, its
top-level token reads only, each secret is referenced in the one upload job that needs it,
only the PyPI job may mint an OIDC token, and the commands it runs are the documented ones
(``data publish``, ``data verify --publication``, ``python -m build``, ``twine check``, the
R tarball the slow suite's R CMD check builds).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from test_ci_trust_boundary import _strings, _triggers, pr_code_in_privileged_jobs

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
#: job -> the secrets it alone may reference
SECRETS = {"hub": {"HF_TOKEN"}, "zenodo": {"ZENODO_TOKEN"}}


def _doc() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def _secrets(node) -> set[str]:
    return {m for s in _strings(node) for m in re.findall(r"secrets\.(\w+)", s)}


def _runs(job: dict) -> str:
    return "\n".join(str(step.get("run", "")) for step in job.get("steps", []))


def test_it_runs_on_version_tags_only():
    doc = _doc()
    assert _triggers(doc) == {"push"}
    push = (doc.get("on") or doc.get(True))["push"]
    assert push == {"tags": ["v*"]}, push


def test_the_token_reads_only_unless_a_job_says_why():
    doc = _doc()
    assert doc["permissions"] == {"contents": "read"}
    for name, job in doc["jobs"].items():
        permissions = job.get("permissions")
        assert permissions is not None, f"job {name} sets no permissions"
        writes = {k for k, v in permissions.items() if v == "write"}
        assert writes == {"pypi": {"id-token"}, "record": {"contents"}}.get(name, set()), name


def test_each_secret_is_referenced_only_in_its_upload_job():
    doc = _doc()
    outside = {k: v for k, v in doc.items() if k != "jobs"}
    assert _secrets(outside) == set()
    for name, job in doc["jobs"].items():
        assert _secrets(job) == SECRETS.get(name, set()), name
    assert "secrets" not in _runs(doc["jobs"]["build"])


def test_no_job_runs_pull_request_code():
    assert pr_code_in_privileged_jobs(WORKFLOW.read_text(), WORKFLOW.name) == []
    assert "pull_request" not in WORKFLOW.read_text()


def test_the_uploads_wait_for_the_checked_build():
    jobs = _doc()["jobs"]
    for name in ("hub", "zenodo", "pypi"):
        assert jobs[name]["needs"] == "build", name
    assert set(jobs["record"]["needs"]) == {"build", "hub", "zenodo", "pypi"}
    build = _runs(jobs["build"])
    for command in ("icgbench data publish --tier full --outdir publication",
                    "icgbench data verify --tier full --publication publication",
                    "python -m build", "twine check", "R CMD build --no-manual r",
                    "sh configure"):
        assert command in build, command
    publish = jobs["pypi"]["steps"][-1]
    assert publish["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert "password" not in (publish.get("with") or {})  # trusted publishing, no token


def test_the_r_tarball_is_the_one_r_cmd_check_checks():
    slow = (ROOT / "tests" / "test_r_package.py").read_text()
    assert '"CMD", "build", "--no-manual", str(PACKAGE)' in slow
    assert 'glob("icgbench_*.tar.gz")' in slow
    assert "mv icgbench_*.tar.gz dist-r/" in _runs(_doc()["jobs"]["build"])
