"""The CI's trust boundary: no job that holds a secret or write access runs a pull request's
code, an approval is bound to the reviewed head commit, and the CI scripts fail closed.

The workflows are checked by parsing them (and the checker is shown to flag the workflow
that ran an approved PR's code next to the key). The scripts run on a real git repository
with a stand-in for the trusted ``icgbench`` that records how it was called; every scenario
also runs against planted bugs in the scripts, each of which some scenario must catch.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from git_helpers import commit, git
from test_pinned_behaviours import (
    admit_sealed_fails_when_admission_fails,
    approval_counts_no_triage_collaborator,
)

ROOT = Path(__file__).resolve().parents[1]

WORKFLOWS = ROOT / ".github" / "workflows"
CI = ROOT / "tools" / "ci"
#: The workflow before the split: a `maintainer-approved` label made the PR's head "trusted".
LABEL_TRUSTED = Path(__file__).with_name("ci_label_trusted_workflow.yml")

# --- the workflows -----------------------------------------------------------------------

PR_REF = re.compile(r"github\.event\.pull_request\.head\.|github\.head_ref|refs/pull/"
                    r"|pull_request\.merge_commit_sha|github\.event\.workflow_run\.head_")
PRIVILEGED_TRIGGERS = {"pull_request_target", "workflow_run"}
RUNNERS = {"bash", "sh", "zsh", "source", ".", "python", "python3", "node", "perl", "ruby",
           "exec", "env", "sudo", "time", "nohup", "xargs", "command", "npx", "uv", "run"}
SHELL_WORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{",
               "}"}


def _triggers(doc: dict) -> set[str]:
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    if isinstance(on, str):
        return {on}
    return set(on or ())


def _strings(node) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif node is not None:
        yield str(node)


def _writes(permissions) -> bool | None:
    """Whether a ``permissions`` block grants a write (None: not set, the default token)."""
    if permissions is None:
        return None
    if isinstance(permissions, str):
        return "write" in permissions
    return any(str(v) == "write" for v in permissions.values())


def _norm(path: str) -> str:
    path = re.sub(r"^(\$\{\{\s*github\.workspace\s*\}\}|\$\{?GITHUB_WORKSPACE\}?)/?", "", path)
    return re.sub(r"^(\./)+", "", path).strip("/")


def _inside(token: str, checkout: str) -> bool:
    token = _norm(token)
    return checkout == "" or token == checkout or token.startswith(checkout + "/")


def _runs_from(script: str, checkout: str) -> bool:
    """Whether a ``run`` script executes, enters or installs something under ``checkout``."""
    for segment in re.split(r"\n|;|&&|\|\|?|\(|\)|`", script):
        try:
            words = shlex.split(segment, comments=True)
        except ValueError:
            words = segment.split()
        while words and (words[0] in SHELL_WORDS or re.match(r"^\w+=", words[0])):
            words.pop(0)
        if not words:
            continue
        command, args = words[0], words[1:]
        operands = [a for a in args if not a.startswith("-") and not re.match(r"^\w+=", a)]
        if _inside(command, checkout) and checkout:
            return True
        if command in RUNNERS and operands and checkout and _inside(operands[0], checkout):
            return True
        if command in {"cd", "pushd"} and operands and checkout and _inside(operands[0],
                                                                            checkout):
            return True
        if command == "make" and checkout:
            for i, a in enumerate(args):
                target = args[i + 1] if a == "-C" and i + 1 < len(args) else (
                    a.split("=", 1)[1] if a.startswith("--directory=") else None)
                if target is not None and _inside(target, checkout):
                    return True
        if "pip" in words[:3] and "install" in words and checkout and any(
                _inside(a, checkout) for a in operands if a not in {"install", "pip"}):
            return True
    return False


def pr_code_in_privileged_jobs(text: str, name: str = "workflow") -> list[str]:
    """Each step of a job that can see a secret or write, or runs on pull_request_target,
    that runs code from a checkout of the pull request."""
    doc = yaml.safe_load(text)
    privileged_workflow = bool(_triggers(doc) & PRIVILEGED_TRIGGERS)
    problems = []
    for job_name, job in (doc.get("jobs") or {}).items():
        writes = _writes(job.get("permissions", doc.get("permissions")))
        if not (privileged_workflow or writes is not False
                or any("secrets" in s for s in _strings(job))):
            continue
        tainted_env = {k for k, v in {**(doc.get("env") or {}), **(job.get("env") or {})}.items()
                       if PR_REF.search(str(v))}
        tainted_steps: set[str] = set()

        def from_pr(value, tainted_env=tainted_env, tainted_steps=tainted_steps) -> bool:
            s = str(value or "")
            return bool(PR_REF.search(s)
                        or any(f"steps.{i}.outputs" in s for i in tainted_steps)
                        or any(re.search(rf"env\.{re.escape(e)}\b", s) for e in tainted_env)
                        or ("needs." in s and ".outputs" in s))

        default_dir = ((job.get("defaults") or {}).get("run") or {}).get("working-directory")
        checkouts: list[str] = []
        for n, step in enumerate(job.get("steps") or [], 1):
            label = f"{name}: job {job_name}: step {n} ({step.get('name') or step.get('uses')})"
            if step.get("id") and any(from_pr(s) for s in _strings(step)):
                tainted_steps.add(step["id"])
            uses, run = str(step.get("uses") or ""), step.get("run")
            with_ = step.get("with") or {}
            if uses.startswith("actions/checkout"):
                if from_pr(with_.get("ref")) or from_pr(with_.get("repository")):
                    checkouts.append(_norm(str(with_.get("path") or "")))
                continue
            if run and (re.search(r"gh\s+pr\s+checkout", run) or (
                    re.search(r"git\s+(fetch|checkout|switch|worktree|pull)\b", run)
                    and (from_pr(run) or any(from_pr(v) for v in (step.get("env") or {})
                                             .values())))):
                checkouts.append(_norm(str(step.get("working-directory") or default_dir or "")))
            where = _norm(str(step.get("working-directory") or default_dir or ""))
            for checkout in checkouts:
                at = checkout or "the workspace root"
                if uses.startswith("./") and _inside(uses, checkout):
                    problems.append(f"{label} uses an action from the PR's checkout at {at}")
                elif run and (checkout == "" or _inside(where, checkout)
                              or _runs_from(run, checkout)):
                    problems.append(f"{label} runs code from the PR's checkout at {at}")
    return problems


def untrusted_workflow_problems(text: str, name: str = "workflow") -> list[str]:
    """What a workflow that runs on pull_request (the PR's own code) must not hold."""
    doc = yaml.safe_load(text)
    if "pull_request" not in _triggers(doc):
        return []
    problems = [f"{name} references {s!r}" for s in _strings(doc)
                if re.search(r"\bsecrets\b", s)]
    writes = _writes(doc.get("permissions"))
    if writes is None:
        problems.append(f"{name} sets no permissions (the default token may write)")
    elif writes:
        problems.append(f"{name} grants a write permission: {doc['permissions']}")
    for job_name, job in (doc.get("jobs") or {}).items():
        if _writes(job.get("permissions")):
            problems.append(f"{name}: job {job_name} grants a write permission")
    return problems


def _workflows() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(WORKFLOWS.glob("*.y*ml"))}


def test_no_job_with_a_secret_or_write_access_runs_pull_request_code():
    problems = [p for name, text in _workflows().items()
                for p in pr_code_in_privileged_jobs(text, name)]
    assert problems == []


def test_the_workflow_that_runs_pull_request_code_holds_nothing():
    untrusted = [n for n, t in _workflows().items()
                 if "pull_request" in _triggers(yaml.safe_load(t))]
    assert untrusted, "no workflow runs a maintainer-approved pull request's own code"
    problems = [p for n in untrusted for p in untrusted_workflow_problems(_workflows()[n], n)]
    assert problems == []
    for name in untrusted:
        assert yaml.safe_load(_workflows()[name])["permissions"] == {"contents": "read"}


def test_the_checker_flags_the_label_trusted_workflow():
    old = LABEL_TRUSTED.read_text()
    problems = pr_code_in_privileged_jobs(old, "old")
    assert any("(Install the trusted code (locked))" in p and "at trusted" in p
               for p in problems), problems
    assert any("(Verify the candidate board" in p and "at trusted" in p for p in problems)


@pytest.mark.parametrize("old, new", [
    ("working-directory: trusted", "working-directory: candidate"),
    ("run: trusted/tools/ci/verify-board", "run: candidate/tools/ci/verify-board"),
    ("python trusted/tools/ci/approval", "python candidate/tools/ci/approval"),
    ("base.sha }}\n          path: trusted", "head.sha }}\n          path: trusted"),
])
def test_the_checker_flags_pull_request_code_planted_in_the_workflow(old, new):
    text = (WORKFLOWS / "leaderboard.yml").read_text()
    assert text.count(old) == 1
    assert pr_code_in_privileged_jobs(text.replace(old, new))


@pytest.mark.parametrize("old, new", [
    ("permissions:\n  contents: read", "permissions:\n  contents: write"),
    ("permissions:\n  contents: read\n", ""),
    ("HEAD: ${{ github.event.pull_request.head.sha }}",
     "HEAD: ${{ github.event.pull_request.head.sha }}\n          KEY: ${{ secrets.KEY }}"),
])
def test_the_checker_flags_a_privilege_planted_in_the_pull_request_workflow(old, new):
    text = (WORKFLOWS / "leaderboard-pr-code.yml").read_text()
    assert text.count(old) == 1
    changed = text.replace(old, new)
    assert untrusted_workflow_problems(changed) and pr_code_in_privileged_jobs(changed)


_TARGET = "on: pull_request_target\npermissions: {contents: read}\njobs:\n  j:\n    steps:\n"
_PR = "on: pull_request\n"


@pytest.mark.parametrize("steps", [
    # the head at the workspace root, then anything runs in it
    "      - uses: actions/checkout@v4\n        with: {ref: '${{ github.head_ref }}'}\n"
    "      - run: npm install\n",
    "      - run: gh pr checkout ${{ github.event.number }} && make\n",
    "      - uses: actions/checkout@v4\n"
    "        with: {ref: '${{ github.event.pull_request.head.sha }}', path: candidate}\n"
    "      - run: bash candidate/tools/ci/verify-board trusted candidate\n",
    "      - uses: actions/checkout@v4\n"
    "        with: {ref: '${{ github.event.pull_request.head.sha }}', path: pr}\n"
    "      - run: cd pr && ./build.sh\n",
    "      - uses: actions/checkout@v4\n"
    "        with: {ref: '${{ github.event.pull_request.head.sha }}', path: pr}\n"
    "      - run: pip install -e ./pr\n",
    "      - uses: actions/checkout@v4\n"
    "        with: {ref: '${{ github.event.pull_request.head.sha }}', path: pr}\n"
    "      - run: make -C pr test\n",
    # laundered through a step output, then a local action from the checkout
    "      - id: pick\n        env: {SHA: '${{ github.event.pull_request.head.sha }}'}\n"
    "        run: echo \"ref=$SHA\" >> \"$GITHUB_OUTPUT\"\n"
    "      - uses: actions/checkout@v4\n"
    "        with: {ref: '${{ steps.pick.outputs.ref }}', path: code}\n"
    "      - uses: ./code/.github/actions/build\n",
    "      - uses: actions/checkout@v4\n"
    "        with: {repository: '${{ github.event.pull_request.head.repo.full_name }}',"
    " path: fork}\n"
    "      - run: ./x\n        working-directory: fork/sub\n",
])
def test_the_checker_flags_pull_request_code_in_a_privileged_job(steps):
    assert pr_code_in_privileged_jobs(_TARGET + steps)


def test_the_checker_flags_a_secret_or_a_write_as_privilege():
    steps = ("      - uses: actions/checkout@v4\n"
             "        with: {ref: 'refs/pull/${{ github.event.number }}/merge', path: pr}\n"
             "      - run: pr/build.sh\n")
    job = "jobs:\n  j:\n    steps:\n" + steps
    assert pr_code_in_privileged_jobs(f"{_PR}permissions: {{contents: read}}\n{job}") == []
    assert pr_code_in_privileged_jobs(f"{_PR}permissions: {{contents: write}}\n{job}")
    assert pr_code_in_privileged_jobs(f"{_PR}{job}")  # no permissions: the default token
    keyed = job.replace("      - run: pr/build.sh\n",
                        "      - run: pr/build.sh\n        env: {K: '${{ secrets.K }}'}\n")
    assert pr_code_in_privileged_jobs(f"{_PR}permissions: {{contents: read}}\n{keyed}")


def test_the_checker_accepts_a_data_only_checkout():
    steps = ("      - uses: actions/checkout@v4\n"
             "        with: {ref: '${{ github.event.pull_request.base.sha }}', path: trusted}\n"
             "      - uses: actions/checkout@v4\n"
             "        with: {ref: '${{ github.event.pull_request.head.sha }}', path: candidate}\n"
             "      - run: make install\n        working-directory: trusted\n"
             "      - run: trusted/tools/ci/verify-board trusted candidate \"$B\" \"$H\"\n"
             "        env: {K: '${{ secrets.K }}'}\n")
    assert pr_code_in_privileged_jobs(_TARGET + steps) == []


@pytest.mark.parametrize("text", [
    "on: pull_request\npermissions: {contents: read}\njobs:\n  j:\n    steps:\n"
    "      - run: x\n        env: {T: '${{ secrets.TOKEN }}'}\n",
    "on: pull_request\npermissions: write-all\njobs: {}\n",
    "on: pull_request\npermissions: {contents: read}\njobs:\n"
    "  j:\n    permissions: {pull-requests: write}\n    steps: []\n",
    "on: [pull_request]\njobs: {}\n",
    "on: pull_request\npermissions: {contents: read}\njobs:\n"
    "  j:\n    uses: ./.github/workflows/x.yml\n    secrets: inherit\n",
])
def test_the_checker_flags_a_pull_request_workflow_that_holds_something(text):
    assert untrusted_workflow_problems(text)


def _pr_target_job() -> dict:
    doc = yaml.safe_load((WORKFLOWS / "leaderboard.yml").read_text())
    assert "pull_request_target" in _triggers(doc)
    (job,) = [j for j in doc["jobs"].values() if "pull_request_target" in str(j.get("if"))]
    return job


def test_the_approval_is_bound_to_the_graded_head_commit():
    job = _pr_target_job()
    head = "${{ github.event.pull_request.head.sha }}"
    steps = {s.get("id") or s.get("name") or s.get("uses"): s for s in job["steps"]}
    checkouts = [s["with"] for s in job["steps"] if s.get("uses", "").startswith(
        "actions/checkout")]
    assert {(c["path"], c["ref"]) for c in checkouts} == {
        ("trusted", "${{ github.event.pull_request.base.sha }}"), ("candidate", head)}
    approval = steps["approval"]
    assert approval["env"]["HEAD_SHA"] == head
    assert "trusted/tools/ci/approval" in approval["run"]
    assert "GH_TOKEN" in approval["env"] and "secrets" not in json.dumps(approval)
    (grade,) = [s for s in job["steps"] if "verify-board" in str(s.get("run"))]
    assert grade["env"]["FLAG"] == "${{ steps.approval.outputs.flag }}"
    assert grade["env"]["HEAD"] == head
    assert grade["run"].startswith("trusted/tools/ci/verify-board trusted candidate ")
    assert "--maintainer-approved" not in json.dumps(job)  # only tools/ci/approval says it
    assert not any(v == "write" for v in job["permissions"].values())


def test_the_pull_request_check_holds_no_secret():
    """The sealed key goes to the jobs that run after a merge only: a pull request's check
    grades nothing sealed, so nothing in its log can be computed from the sealed truth."""
    doc = yaml.safe_load((WORKFLOWS / "leaderboard.yml").read_text())
    assert "secrets." not in json.dumps(_pr_target_job())
    keyed = {name for name, job in doc["jobs"].items()
             if "secrets.ICGBENCH_SEALED_KEY" in json.dumps(job)}
    assert keyed == {"verify-main", "admit"}
    assert all("push" in str(doc["jobs"][name]["if"]) for name in keyed)


# --- tools/ci/approval -------------------------------------------------------------------

HEAD = "a" * 40
OLD = "b" * 40


@pytest.fixture
def github(tmp_path):
    """A stand-in ``gh`` answering ``gh api --paginate PATH`` from files, and a runner."""
    answers = tmp_path / "answers"
    answers.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text('#!/usr/bin/env bash\nf="$ANSWERS/${3//\\//_}"\n'
                  '[ -f "$f" ] || { echo "HTTP 404: Not Found" >&2; exit 1; }\ncat "$f"\n')
    gh.chmod(0o755)

    def answer(path: str, *pages) -> None:
        text = "".join(p if isinstance(p, str) else json.dumps(p) for p in pages)
        (answers / path.replace("/", "_")).write_text(text)

    def run(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "ANSWERS": str(answers)}
        return subprocess.run([sys.executable, CI / "approval", *args], capture_output=True,
                              text=True, check=False, env=env)

    return answer, run


def _review(login: str, state: str, sha: str) -> dict:
    return {"user": {"login": login}, "state": state, "commit_id": sha}


REVIEWS = "repos/o/r/pulls/7/reviews"


def _permission(answer, login: str, permission: str) -> None:
    answer(f"repos/o/r/collaborators/{login}/permission",
           {"permission": permission, "role_name": permission, "user": {"login": login}})


@pytest.mark.parametrize("pages, approved", [
    ([[_review("maint", "APPROVED", HEAD)]], True),
    ([[_review("maint", "APPROVED", OLD)]], False),  # pushed after the review
    ([[_review("maint", "APPROVED", HEAD), _review("maint", "COMMENTED", HEAD)]], True),
    ([[_review("maint", "APPROVED", HEAD), _review("maint", "CHANGES_REQUESTED", HEAD)]],
     False),
    ([[_review("maint", "APPROVED", HEAD)], [_review("maint", "DISMISSED", HEAD)]], False),
    ([[_review("reader", "APPROVED", HEAD)]], False),  # no write access
    ([[_review("reader", "APPROVED", HEAD)], [_review("maint", "APPROVED", HEAD)]], True),
    ([[]], False),
])
def test_only_a_maintainers_latest_review_of_the_head_commit_approves(github, pages,
                                                                      approved):
    answer, run = github
    answer(REVIEWS, *pages)
    _permission(answer, "maint", "write")
    _permission(answer, "reader", "read")
    done = run("o/r", "7", HEAD)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("--maintainer-approved\n" if approved else "")


def test_approval_fails_closed(github):
    answer, run = github
    failed = run("o/r", "7", HEAD)  # the API answers 404
    assert failed.returncode == 1 and failed.stdout == "" and "404" in failed.stderr
    answer(REVIEWS, "[{")
    assert run("o/r", "7", HEAD).returncode == 1
    answer(REVIEWS, [_review("maint", "APPROVED", HEAD)])
    unknown = run("o/r", "7", HEAD)  # the reviewer's permission cannot be read
    assert unknown.returncode == 1 and unknown.stdout == ""
    for args in [("o/r", "7"), ("o/r", "7", "HEAD"), ("o/r", "7; x", HEAD),
                 ("o r", "7", HEAD)]:
        assert run(*args).returncode == 2


# --- tools/ci/pr-scope and tools/ci/verify-board on a real repository ---------------------

STUB = """#!/usr/bin/env bash
printf '%s %s %s\\n' "{who}" "$PWD" "$*" >>"$ICG_LOG"
case "$*" in ${{ICG_FAIL:-@never@}}) exit 1 ;; esac
"""
CANDIDATE_SCOPE = '#!/usr/bin/env bash\necho "CANDIDATE pr-scope" >>"$ICG_LOG"\n'


@dataclass(frozen=True)
class Repo:
    root: Path
    shas: dict[str, str]
    trees: dict[str, Path]

    def sha(self, name: str) -> str:
        return self.shas.get(name, name)


def _write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if text.startswith("#!"):
            path.chmod(0o755)


def _embedded_repository(folder: Path) -> None:
    """A repository inside the board: ``git add`` records it as a gitlink (mode 160000)."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q")
    commit(folder, "a submodule's commit")


@pytest.fixture(scope="module")
def prs(tmp_path_factory) -> Repo:
    """A repository whose main holds a board, the PR's own fake scripts and code, and a
    commit per pull request (each checked out in a worktree of its own)."""
    root = tmp_path_factory.mktemp("prs").resolve()
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _write(repo, {"leaderboard/leaderboard.json": "{}\n", "leaderboard/notes.txt": "n\n",
                  "README.md": "r\n", "src/icgbench/x.py": "x = 1\n",
                  "tools/ci/pr-scope": CANDIDATE_SCOPE,
                  ".venv/bin/icgbench": STUB.format(who="CANDIDATE")})
    git(repo, "add", "-f", ".venv")
    shas = {"base": commit(repo, "base")}
    changes: dict[str, Callable[[], None]] = {
        "inside": lambda: _write(repo, {"leaderboard/leaderboard.json": "{\"e\": 1}\n",
                                        "leaderboard/submissions/a.json": "{}"}),
        "deleted": lambda: (repo / "leaderboard/notes.txt").unlink(),
        "outside": lambda: _write(repo, {"leaderboard/leaderboard.json": "{\"e\": 2}\n",
                                         "datapackage.json": "{}", "src/icgbench/x.py": "x=2"}),
        "leaderboard.py": lambda: _write(repo, {"leaderboard.py": "x"}),
        "leaderboard-x/f": lambda: _write(repo, {"leaderboard-x/f": "x"}),
        "Leaderboard/x": lambda: _write(repo, {"Leaderboard/x": "x"}),
        "docs/leaderboard/x": lambda: _write(repo, {"docs/leaderboard/x": "x"}),
        "renamed": lambda: git(repo, "mv", "src/icgbench/x.py", "leaderboard/x.py"),
        "sealed": lambda: _write(repo, {"leaderboard/sealed/leaderboard.json": "{}",
                                        "leaderboard/sealed/queue/s.json": "{}"}),
        "main_moved_on": lambda: _write(repo, {"src/icgbench/x.py": "x = 3\n"}),
        "broken": lambda: _write(repo, {"leaderboard/deep/unreadable": "a tree of its own"}),
        "symlink": lambda: (repo / "leaderboard/up").symlink_to("../src"),
        "replaced": lambda: _write(repo, {"src/icgbench/x.py": "x = 4\n"}),
        "gitlink": lambda: _embedded_repository(repo / "leaderboard/sub"),  # last: it stays
    }
    for name, change in changes.items():
        git(repo, "checkout", "-q", "--detach", shas["base"])
        change()
        shas[name] = commit(repo, name)
    shutil.rmtree(repo / "leaderboard/sub")  # the embedded repository; its gitlink stays
    git(repo, "checkout", "-q", "--detach", shas["sealed"])
    git(repo, "rm", "-rq", "leaderboard/sealed")
    shas["sealed_deleted"] = commit(repo, "the sealed board deleted")
    # a replace ref would show the scope check a board-only tree in place of "replaced"
    git(repo, "replace", shas["replaced"], shas["inside"])
    git(repo, "checkout", "-q", "--orphan", "unrelated")
    git(repo, "rm", "-rfq", ".")
    _write(repo, {"leaderboard/leaderboard.json": "{}\n"})
    shas["orphan"] = commit(repo, "unrelated history")
    trees = {}
    for name, sha in shas.items():
        trees[name] = root / "trees" / re.sub(r"\W", "_", name)
        git(repo, "worktree", "add", "-q", "--detach", str(trees[name]), sha)
    missing = git(repo, "rev-parse", f"{shas['broken']}:leaderboard/deep")
    (repo / ".git/objects" / missing[:2] / missing[2:]).unlink()  # git diff cannot read it
    return Repo(repo, shas, trees)


@dataclass(frozen=True)
class Run:
    rc: int
    out: str
    err: str
    log: list[str]


@dataclass(frozen=True)
class Ci:
    """A trusted checkout (the scripts under test and a recording ``icgbench``) and the
    repository of pull requests."""

    trusted: Path
    prs: Repo

    def _run(self, args: list, fail: str | None = None) -> Run:
        log = self.trusted / "calls.log"
        log.write_text("")
        env = {**os.environ, "ICG_LOG": str(log)}
        env.pop("ICG_FAIL", None)
        if fail:
            env["ICG_FAIL"] = fail
        done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                              check=False, env=env, timeout=60)
        return Run(done.returncode, done.stdout, done.stderr, log.read_text().splitlines())

    def scope(self, base: str, head: str, *flag: str) -> Run:
        return self._run([self.trusted / "tools/ci/pr-scope", self.prs.root,
                          self.prs.sha(base), self.prs.sha(head), *flag])

    def verify(self, base: str, head: str, *flag: str, at: str | None = None,
               fail: str | None = None) -> Run:
        candidate = self.prs.trees[at or head]
        return self._run([self.trusted / "tools/ci/verify-board", self.trusted, candidate,
                          self.prs.sha(base) if base else "", self.prs.sha(head), *flag],
                         fail)

    def calls(self, head: str, *lines: str) -> list[str]:
        c = self.prs.trees[head]
        return [f"trusted {self.trusted} " + line.format(c=c, base=self.prs.sha("base"))
                for line in lines]


#: The scripts a trusted checkout holds (each mutant replaces one of them).
SCRIPTS = ("pr-scope", "verify-board", "admit-sealed", "approval")


def make_ci(folder: Path, prs: Repo, scripts: dict[str, str] | None = None) -> Ci:
    folder.mkdir(parents=True)
    _write(folder, {f"tools/ci/{n}": (CI / n).read_text() for n in SCRIPTS}
           | {f"tools/ci/{n}": t for n, t in (scripts or {}).items()}
           | {".venv/bin/icgbench": STUB.format(who="trusted"),
              # the real interpreter: the scripts run git through the trusted package
              ".venv/bin/python": f'#!/bin/sh\nexec "{sys.executable}" "$@"\n'})
    return Ci(folder.resolve(), prs)


SCENARIOS: dict[str, Callable[[Ci], None]] = {}


def scenario(fn: Callable[[Ci], None]) -> Callable[[Ci], None]:
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def scripts_fail_closed(ci: Ci) -> None:
    for name in ("pr-scope", "verify-board"):
        code = [line.split("#")[0] for line in
                (ci.trusted / "tools/ci" / name).read_text().splitlines()[1:]]
        assert "set -euo pipefail" in [line.strip() for line in code], name
        assert not any("<(" in line or ">(" in line for line in code), name


@scenario
def scope_passes_a_board_only_pr(ci: Ci) -> None:
    run = ci.scope("base", "inside")
    assert run.rc == 0 and "2 changed file(s), all inside leaderboard/" in run.out


@scenario
def scope_passes_a_deletion_inside(ci: Ci) -> None:
    assert ci.scope("base", "deleted").rc == 0


@scenario
def scope_refuses_code_and_release(ci: Ci) -> None:
    run = ci.scope("base", "outside")
    assert run.rc == 1 and "2 file(s) outside leaderboard/" in run.err
    assert "datapackage.json" in run.err and "src/icgbench/x.py" in run.err
    assert "leaderboard/leaderboard.json" not in run.err


@scenario
def scope_passes_an_approved_pr(ci: Ci) -> None:
    run = ci.scope("base", "outside", "--maintainer-approved")
    assert run.rc == 0 and "a maintainer approved" in run.out


@scenario
def scope_refuses_an_unknown_option(ci: Ci) -> None:
    assert ci.scope("base", "outside", "--yes").rc == 2
    assert ci.scope("base", "inside", "--yes").rc == 2


@scenario
def scope_counts_lookalike_paths_outside(ci: Ci) -> None:
    for path in ("leaderboard.py", "leaderboard-x/f", "Leaderboard/x", "docs/leaderboard/x"):
        run = ci.scope("base", path)
        assert run.rc == 1 and f"  {path}\n" in run.err, path


@scenario
def scope_counts_a_move_into_the_board_outside(ci: Ci) -> None:
    run = ci.scope("base", "renamed")
    assert run.rc == 1 and "src/icgbench/x.py" in run.err


@scenario
def scope_ignores_what_the_base_did_since(ci: Ci) -> None:
    assert ci.scope("main_moved_on", "inside").rc == 0


@scenario
def scope_fails_without_a_merge_base(ci: Ci) -> None:
    for base, head in (("orphan", "outside"), ("base", "orphan")):
        run = ci.scope(base, head)
        assert run.rc == 2 and "no merge base" in run.err and run.out == ""


@scenario
def scope_fails_on_a_ref_that_is_not_a_commit(ci: Ci) -> None:
    for base, head in (("0123456789" * 4, "outside"), ("base", "no-such-branch"), ("", "inside")):
        run = ci.scope(base, head)
        assert run.rc == 2 and "is not a commit" in run.err, (base, head)


@scenario
def scope_takes_no_option_for_a_ref(ci: Ci) -> None:
    written = ci.trusted / "written-by-git"
    run = ci.scope(f"--output={written}", "outside")
    assert run.rc == 2 and not written.exists()


@scenario
def scope_fails_when_git_diff_fails(ci: Ci) -> None:
    run = ci.scope("base", "broken")
    assert run.rc == 2 and "git diff" in run.err and run.out == ""


@scenario
def scope_refuses_links_in_the_board(ci: Ci) -> None:
    for head, mode in (("gitlink", "160000"), ("symlink", "120000")):
        for flag in ((), ("--maintainer-approved",)):
            run = ci.scope("base", head, *flag)
            assert run.rc == 1 and "adds 1 gitlink(s)" in run.err, head
            assert f"\n  {mode} leaderboard/" in run.err and "regular files" in run.err, head


@scenario
def scope_ignores_replace_refs(ci: Ci) -> None:
    run = ci.scope("base", "replaced")
    assert run.rc == 1 and "src/icgbench/x.py" in run.err


@scenario
def scope_usage(ci: Ci) -> None:
    assert ci._run([ci.trusted / "tools/ci/pr-scope", ci.prs.root, "x"]).rc == 2


_GRADE = ("data verify --tier full", "data verify --tier full --deep",
          "leaderboard verify --dir {c}/leaderboard --tier full --base {base}")


@scenario
def verify_grades_with_the_trusted_code_only(ci: Ci) -> None:
    run = ci.verify("base", "inside")
    assert run.rc == 0, run.err
    assert run.log == ci.calls("inside", *_GRADE)
    assert f"verified by the code and release of {ci.trusted}" in run.out


@scenario
def verify_refuses_code_and_release_before_running_anything(ci: Ci) -> None:
    run = ci.verify("base", "outside")
    assert run.rc == 1 and run.log == [] and "datapackage.json" in run.err


@scenario
def verify_grades_an_approved_pr_with_the_trusted_code(ci: Ci) -> None:
    run = ci.verify("base", "outside", "--maintainer-approved")
    assert run.rc == 0 and run.log == ci.calls("outside", *_GRADE)


@scenario
def verify_refuses_lookalike_paths(ci: Ci) -> None:
    for path in ("leaderboard.py", "leaderboard-x/f", "Leaderboard/x"):
        run = ci.verify("base", path)
        assert run.rc == 1 and run.log == [], path


@scenario
def verify_fails_without_a_merge_base(ci: Ci) -> None:
    run = ci.verify("orphan", "outside")
    assert run.rc == 2 and run.log == [] and "no merge base" in run.err


@scenario
def verify_fails_when_git_diff_fails(ci: Ci) -> None:
    run = ci.verify("base", "broken")
    assert run.rc == 2 and run.log == []


@scenario
def verify_reads_the_board_of_the_head_it_checks(ci: Ci) -> None:
    run = ci.verify("base", "outside", at="inside")
    assert run.rc == 2 and run.log == [] and "checked out at" in run.err
    bogus = ci.verify("base", "0123456789" * 4, at="inside")
    assert bogus.rc == 2 and bogus.log == []


@scenario
def verify_checks_the_sealed_board_and_queue(ci: Ci) -> None:
    run = ci.verify("base", "sealed")
    assert run.rc == 0 and run.log == ci.calls(
        "sealed", *_GRADE,
        "leaderboard verify --dir {c}/leaderboard/sealed --tier sealed --base {base}",
        "leaderboard admit --dir {c}/leaderboard/sealed --dry-run --base {base}")


@scenario
def verify_checks_a_deleted_sealed_board(ci: Ci) -> None:
    run = ci.verify("sealed", "sealed_deleted")
    c, base = ci.prs.trees["sealed_deleted"], ci.prs.sha("sealed")
    assert run.rc == 0 and run.log[-1] == (
        f"trusted {ci.trusted} leaderboard verify --dir {c}/leaderboard/sealed --tier sealed"
        f" --base {base}")
    assert ci.verify("base", "inside").log == ci.calls("inside", *_GRADE)


@scenario
def verify_a_first_push_has_no_history(ci: Ci) -> None:
    run = ci.verify("", "inside")
    assert run.rc == 0 and run.log == ci.calls(
        "inside", *_GRADE[:2], "leaderboard verify --dir {c}/leaderboard --tier full")
    refused = ci.verify("", "inside", "--yes")
    assert refused.rc == 2 and refused.log == []


@scenario
def verify_builds_a_missing_full_tier(ci: Ci) -> None:
    run = ci.verify("base", "inside", fail="data verify --tier full")
    assert run.rc == 0 and run.log == ci.calls(
        "inside", _GRADE[0], "data build --tier full --jobs 2", *_GRADE[1:])


@scenario
def verify_fails_when_a_check_fails(ci: Ci) -> None:
    deep = ci.verify("base", "inside", fail="data verify --tier full --deep")
    assert deep.rc == 1 and deep.log == ci.calls("inside", *_GRADE[:2])
    board = ci.verify("base", "sealed", fail="leaderboard verify *")
    assert board.rc == 1 and board.log == ci.calls("sealed", *_GRADE)
    queue = ci.verify("base", "sealed", fail="leaderboard admit *")
    assert queue.rc == 1 and len(queue.log) == 5


# tools/ci/admit-sealed and tools/ci/approval: checks of test_pinned_behaviours.py, run on the
# trusted checkout's copy of the script (so on each planted bug too)

@scenario
def admit_sealed_fails_when_admit_fails(ci: Ci) -> None:
    admit_sealed_fails_when_admission_fails(ci.trusted / "tools/ci/admit-sealed",
                                            Path(tempfile.mkdtemp(dir=ci.trusted)))


@scenario
def approval_counts_no_triage(ci: Ci) -> None:
    approval_counts_no_triage_collaborator(ci.trusted / "tools/ci/approval",
                                           Path(tempfile.mkdtemp(dir=ci.trusted)))


@pytest.fixture(scope="module")
def real_ci(prs, tmp_path_factory) -> Ci:
    return make_ci(tmp_path_factory.mktemp("ci") / "trusted", prs)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_ci_scripts(real_ci, name):
    SCENARIOS[name](real_ci)


def test_every_ci_script_is_executable_and_admit_sealed_fails_closed():
    for name in ("pr-scope", "verify-board", "admit-sealed", "approval"):
        assert os.access(CI / name, os.X_OK), name
    text = (CI / "admit-sealed").read_text()
    assert "set -euo pipefail" in text and "<(" not in text


# --- planted bugs ------------------------------------------------------------------------

MUTANTS: list[tuple[str, str, str, str]] = [
    # (script, text in it, what a plausible change writes instead, the bug)
    ("pr-scope", "set -euo pipefail", "set -eu", "drop pipefail"),
    ("pr-scope", "    leaderboard/*)\n", "    leaderboard*)\n", "prefix without the slash"),
    ("pr-scope", "    leaderboard/*)\n", "    *leaderboard/*)\n", "any leaderboard/ folder"),
    ("pr-scope", "160000 | 120000)", "120000)", "gitlinks pass"),
    ("pr-scope", "160000 | 120000)", "160000)", "symbolic links pass"),
    ("pr-scope", "  exit 1\nfi\nif [ ${#outside[@]}", "  exit 0\nfi\nif [ ${#outside[@]}",
     "links reported, not refused"),
    ("pr-scope", '"$ci_python" -m icgbench.leaderboard.gitrepo "$@"', 'git "$@"',
     "git run unhardened (replace refs honoured)"),
    ("pr-scope", "set -euo pipefail\n", "set -euo pipefail\nshopt -s nocasematch\n",
     "case-insensitive paths"),
    ("pr-scope", "  exit 1\nfi\necho", "  exit 0\nfi\necho", "out of scope exits 0"),
    ("pr-scope", 'if [ -n "$approved" ] && [ "$approved" != "--maintainer-approved" ]; then\n'
     '  echo "pr-scope: unknown option $approved" >&2\n  exit 2\nfi\n', "",
     "no validation of the approval flag"),
    ("pr-scope", 'if [ "$approved" = "--maintainer-approved" ]; then',
     'if [ "$approved" != "--maintainer-approved" ]; then', "approval test inverted"),
    ("pr-scope", "repo=$1 base=$2 head=$3", "repo=$1 base=$3 head=$2", "base and head swapped"),
    ("pr-scope", '"$merge_base" "$head_sha" -- >', '"$merge_base" "$base_sha" -- >',
     "diffs the base instead of the head"),
    ("pr-scope", '"$merge_base" "$head_sha" -- >', '"$base_sha" "$head_sha" -- >',
     "two-dot diff (counts what main did since)"),
    ("pr-scope", " --no-renames ", " ", "renames detected (a move into the board hides)"),
    ("pr-scope", 'rev-parse --verify --quiet "$1^{commit}"', 'rev-parse "$1"',
     "refs not checked to be commits"),
    ("pr-scope", 'if ! merge_base=$(git_ -C "$repo" merge-base "$base_sha" "$head_sha"); then',
     'if ! merge_base=$(git_ -C "$repo" merge-base "$base_sha" "$head_sha" || echo "$base_sha")'
     '; then', "no merge base falls back to the base"),
    ("pr-scope", "cannot tell what the pull request changes\" >&2\n  exit 2",
     "cannot tell what the pull request changes\" >&2\n  exit 0", "no merge base exits 0"),
    ("pr-scope", 'if ! git_ -C "$repo" diff -z --raw --no-renames --no-ext-diff --no-textconv \\\n'
     '    "$merge_base" "$head_sha" -- >"$changes"\nthen\n'
     '  echo "pr-scope: git diff $merge_base $head_sha failed in $repo" >&2\n  exit 2\nfi\n',
     'git_ -C "$repo" diff -z --raw --no-renames --no-ext-diff --no-textconv \\\n'
     '    "$merge_base" "$head_sha" -- >"$changes" || true\n', "git diff's status ignored"),
    ("pr-scope", 'done <"$changes"',
     'done < <(git_ -C "$repo" diff -z --raw --no-renames "$base...$head" --)',
     "back to process substitution"),
    ("verify-board", "set -euo pipefail", "set -uo pipefail", "drop -e"),
    ("verify-board", "set -euo pipefail", "set -eu", "drop pipefail"),
    ("verify-board", '"$trusted/tools/ci/pr-scope"', '"$candidate/tools/ci/pr-scope"',
     "the PR's own scope check"),
    ("verify-board", 'icgbench="$trusted/.venv/bin/icgbench"',
     'icgbench="$candidate/.venv/bin/icgbench"', "the PR's own code grades"),
    ("verify-board", 'cd "$trusted"', 'cd "$candidate"', "the PR's release is read"),
    ("verify-board", 'if [ -n "$base" ]; then', 'if [ -z "$base" ]; then',
     "scope checked only without a base"),
    ("verify-board", '${approved:+"$approved"}', "--maintainer-approved",
     "every PR approved"),
    ("verify-board", '"$candidate" "$base" "$head"', '"$candidate" "$head" "$base"',
     "base and head swapped"),
    ("verify-board", '--tier full ${base:+--base "$base"}', "--tier full",
     "no history check"),
    ("verify-board", 'if [ "$checked_out" != "$wanted" ]; then', "if false; then",
     "the board read is not bound to HEAD"),
    ("verify-board", 'the one whose scope is checked" >&2\n  exit 2',
     'the one whose scope is checked" >&2\n  exit 0', "a mismatched checkout exits 0"),
    ("verify-board", 'if [ -n "$approved" ] && [ "$approved" != "--maintainer-approved" ]; then'
     '\n  echo "verify-board: unknown option $approved" >&2\n  exit 2\nfi\n', "",
     "no validation of the approval flag"),
    ("verify-board", "--tier full --deep", "--tier full", "no deep verification"),
    ("verify-board", 'if [ -e "$sealed/leaderboard.json" ] ||',
     'if [ -d "$sealed/leaderboard.json" ] ||', "the sealed board is skipped"),
    ("verify-board", ' || [ -n "$sealed_at_base" ]; then', "; then",
     "a deleted sealed board is not checked"),
    ("verify-board", '"$base:leaderboard/sealed/leaderboard.json"',
     '"$head:leaderboard/sealed/leaderboard.json"', "the sealed board looked up at the head"),
    ("verify-board", "--dry-run", "", "the queue admitted in a PR"),
    ("verify-board", '--dry-run ${base:+--base "$base"}', "--dry-run",
     "the queue not rationed per pull request"),
    ("verify-board", 'if ! "$icgbench" data verify --tier full >/dev/null 2>&1; then',
     "if false; then", "a missing tier is not built"),
    ("verify-board", '--tier full ${base:+--base "$base"}\n',
     '--tier full ${base:+--base "$base"} || true\n', "a failing board passes"),
    ("admit-sealed", 'leaderboard admit --dir "$board" || status=$?',
     'leaderboard admit --dir "$board" || true', "a failing admission exits 0"),
    ("approval", 'MAINTAINERS = {"admin", "maintain", "write"}',
     'MAINTAINERS = {"admin", "maintain", "write", "triage"}',
     "a triage collaborator approves as a maintainer"),
]


@pytest.mark.slow
def test_every_planted_bug_is_caught(prs, tmp_path):
    survivors = []
    for n, (script, old, new, why) in enumerate(MUTANTS):
        text = (CI / script).read_text()
        assert text.count(old) == 1, f"mutant {why!r}: {old!r} no longer occurs once"
        ci = make_ci(tmp_path / f"m{n}", prs, {script: text.replace(old, new)})
        first = {"pr-scope": "scope_", "verify-board": "verify_",
                 "admit-sealed": "admit_sealed_", "approval": "approval_"}[script]
        killed = False
        for _, run in sorted(SCENARIOS.items(), key=lambda kv: not kv[0].startswith(first)):
            try:
                run(ci)
            except AssertionError:
                killed = True
                break
        if not killed:
            survivors.append(f"{script}: {why}")
    print(f"planted bugs caught: {len(MUTANTS) - len(survivors)}/{len(MUTANTS)}")
    assert survivors == []
