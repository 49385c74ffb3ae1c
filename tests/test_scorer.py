"""The scorer end to end: validation layers, messages, exit codes, reports, integrity."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft7Validator
from sklearn.metrics import roc_auc_score

from icgbench import contract
from icgbench.api.tables import load_table
from icgbench.cli import main
from icgbench.errors import InvalidInputError, UsageError
from icgbench.release.tiers import DATA_VERSION
from icgbench.scorer import SubmissionInvalid, check_submission, score
from scoring_helpers import perfect, template

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, doc, name: str = "sub.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def errors_of(source, **kw) -> list[str]:
    with pytest.raises(SubmissionInvalid) as info:
        score(source, **kw)
    return info.value.errors


# --- grading ---------------------------------------------------------------------------------

def test_template_scores_at_chance():
    report = score(template())
    assert report.summary["auroc"] == 0.5
    assert report.metrics("latent_recovery")["n_states"] == 9
    assert abs(report.summary["r2_mean"]) < 0.02
    assert report.metrics("intervention_conformity")["dgp_conformity"] == 0.0
    assert Draft7Validator(contract.json_schema("score-report")).is_valid(report.document)


@pytest.mark.parametrize("variant", ["linear_lowhet", "misspecified_signs_v2"])
def test_perfect_submission_scores_perfectly(variant):
    report = score(perfect(variant))
    truth = load_table(variant, "test_outcomes", role="truth")
    src = truth[truth.split == "test"]
    assert report.summary["auroc"] == pytest.approx(roc_auc_score(src.event, src.true_risk))
    lr = report.metrics("latent_recovery")
    assert lr["r2_mean"] == pytest.approx(1.0)
    ic = report.metrics("intervention_conformity")
    assert ic["dgp_conformity"] == 1.0 and ic["responsive_dgp_conformity"] == 1.0
    assert ic["pehe"] == pytest.approx(0.0, abs=1e-12)
    assert ic["ate_mae"] == pytest.approx(0.0, abs=1e-12)
    if variant.startswith("misspecified"):
        assert ic["prior_conformity"] < 1.0  # truth disagrees with the prior
    assert report.document["model"]["oracle"] is True


def test_report_records_provenance(tmp_path):
    path = write(tmp_path, perfect())
    report = score(path)
    doc = report.document
    assert doc["submission"]["sha256"].startswith("sha256:")
    assert doc["submission"]["bytes"] == path.stat().st_size
    assert doc["release_fingerprint"].startswith("sha256:")
    assert doc["data_version"] == json.loads((ROOT / "datapackage.json").read_text())["version"]
    assert set(doc["timings"]) >= {"parse_seconds", "score_seconds", "total_seconds"}
    info = doc["metric_info"]["risk_prediction"]
    assert info["auroc"] == {"higher_is_better": True, "random_baseline": 0.5, "best": 1.0}
    assert info["auprc"]["random_baseline"] == pytest.approx(
        doc["tasks"]["risk_prediction"]["metrics"]["event_rate"])


def test_gzip_submission_scores_like_plain(tmp_path):
    doc = perfect()
    plain = score(write(tmp_path, doc))
    gz = tmp_path / "sub.json.gz"
    gz.write_bytes(gzip.compress(json.dumps(doc).encode()))
    packed = score(gz)
    assert packed.document["tasks"] == plain.document["tasks"]


def test_order_of_subjects_does_not_matter():
    doc = perfect()
    block = doc["risk_prediction"]
    order = np.random.default_rng(0).permutation(len(block["subject_id"]))
    block["subject_id"] = [block["subject_id"][i] for i in order]
    block["proba"] = [block["proba"][i] for i in order]
    assert score(doc).summary["auroc"] == score(perfect()).summary["auroc"]


def test_only_attempted_tasks_are_graded():
    doc = template()
    for block in ("latent_recovery", "intervention_conformity", "cross_host_generalization",
                  "structure_recovery"):
        del doc[block]
    report = score(doc)
    assert list(report.document["tasks"]) == ["risk_prediction"]
    assert report.summary["r2_mean"] is None and report.summary["composite"] == 0.5


# --- the JSON Schema layer -----------------------------------------------------------------

def test_schema_errors_name_the_json_path():
    doc = template()
    doc["risk_prediction"]["proba"][17] = 1.5
    doc["latent_recovery"]["states"]["DNA_adducts"][3] = "x"
    doc["bogus"] = 1
    errors = errors_of(doc)
    assert errors == ['/: unknown key(s) not allowed: "bogus"',
                      "/risk_prediction/proba/17: 1.5 is greater than the maximum of 1",
                      '/latent_recovery/states/DNA_adducts/3: "x" is not of type number']


def test_no_block_is_one_clear_error():
    doc = template()
    for block in ("risk_prediction", "latent_recovery", "intervention_conformity",
                  "cross_host_generalization", "structure_recovery"):
        del doc[block]
    assert errors_of(doc) == ["/: at least one task block is required (risk_prediction, "
                              "latent_recovery, intervention_conformity, "
                              "cross_host_generalization, structure_recovery)"]


def test_error_list_is_bounded():
    doc = template()
    doc["risk_prediction"]["proba"] = ["x"] * 400
    doc["cross_host_generalization"]["proba"] = [2.0] * 400
    with pytest.raises(SubmissionInvalid) as info:
        check_submission(doc, max_errors=5)
    assert len(info.value.errors) == 6 and info.value.errors[-1].startswith("... and ")


# --- parsing --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('{"a": NaN}', "NaN is not valid JSON"),
    ('{"a": Infinity}', "Infinity is not valid JSON"),
    ('{"a": 1, "a": 2}', "duplicate object key 'a'"),
    ('{"a": 1,', "not valid JSON"),
    ('\ufeff{"a": 1}', "byte-order mark"),
])
def test_parse_errors(tmp_path, text, message):
    errors = errors_of(write(tmp_path, text))
    assert len(errors) == 1 and message in errors[0], errors


def test_non_utf8_is_rejected(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"model": "caf\xe9"}')
    assert "not valid UTF-8 at byte offset 14" in errors_of(path)[0]


def test_size_limit_applies_to_files_and_gzip_contents(tmp_path):
    path = write(tmp_path, template())
    assert "over the limit of 1000" in errors_of(path, max_bytes=1000)[0]
    gz = tmp_path / "sub.json.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert gz.stat().st_size < 50_000 < path.stat().st_size
    assert "decompressed content is over the limit" in errors_of(gz, max_bytes=50_000)[0]


def test_overflowing_number_is_not_finite():
    text = json.dumps(template()).replace('"DNA_adducts": [', '"DNA_adducts": [1e999, ', 1)
    text = text.replace('"ROS": [', '"ROS": [1, ', 1)
    errors = errors_of(text.encode())
    assert any("/latent_recovery/states/DNA_adducts/0: number is not finite" in e
               for e in errors), errors


# --- semantic checks ------------------------------------------------------------------------

def test_ids_missing_unknown_and_duplicated_are_named():
    doc = template()
    block = doc["risk_prediction"]
    block["subject_id"][0] = "TE999999"
    block["subject_id"][1] = block["subject_id"][2]
    errors = errors_of(doc)
    assert any("duplicate ids: TE000003" in e for e in errors), errors
    assert any("2 test subject(s) missing: TE000001, TE000002" in e for e in errors), errors
    assert any("1 id(s) not in the test split: TE999999" in e for e in errors), errors


def test_target_ids_in_the_source_block_are_unknown():
    doc = template()
    doc["risk_prediction"]["subject_id"][0] = doc["cross_host_generalization"]["subject_id"][0]
    assert any("not in the test split: TG000001" in e for e in errors_of(doc))


def test_parallel_arrays_must_have_equal_lengths():
    doc = template()
    doc["intervention_conformity"]["interventions"]["do_repair_inhibition"].pop()
    errors = errors_of(doc)
    assert any(e.startswith("/intervention_conformity: parallel arrays differ in length")
               and "/interventions/do_repair_inhibition has 399" in e for e in errors), errors


@pytest.mark.parametrize("field, value, message", [
    ("variant_hash", "0123456789ab", 'is not the hash of variant "linear_lowhet"'),
    ("data_version", "9.9.9", f'/data_version: "9.9.9" is not the release\'s version '
     f'"{DATA_VERSION}" (download or build release 9.9.9, or refit on this one)'),
    ("seed", 5, "has no cohort (linear_lowhet, seed 5)"),
])
def test_header_must_match_the_release(field, value, message):
    doc = template()
    doc[field] = value
    assert any(message in e for e in errors_of(doc))


# --- integrity of the truth -----------------------------------------------------------------

def test_tampered_truth_stops_scoring(tmp_path, monkeypatch):
    root = tmp_path / "release"
    shutil.copytree(ROOT / "datasets" / "small" / "linear_lowhet",
                    root / "datasets" / "small" / "linear_lowhet")
    shutil.copy(ROOT / "datapackage.json", root / "datapackage.json")
    victim = root / "datasets/small/linear_lowhet/seed0/counterfactual_risks.parquet"
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    monkeypatch.setenv("ICGBENCH_HOME", str(root))
    with pytest.raises(InvalidInputError, match=r"counterfactual_risks\.parquet does not match"):
        score(template())


# --- the command line -----------------------------------------------------------------------

def test_cli_exit_codes(tmp_path, capsys):
    good = write(tmp_path, template(), "good.json")
    bad_doc = template()
    bad_doc["risk_prediction"]["proba"][0] = -1
    bad = write(tmp_path, bad_doc, "bad.json")
    assert main(["validate", str(good)]) == 0
    assert "VALID" in capsys.readouterr().out
    assert main(["validate", str(bad)]) == 1
    assert "/risk_prediction/proba/0: -1 is less than the minimum of 0" in (
        capsys.readouterr().out)
    assert main(["validate", str(tmp_path / "missing.json")]) == 2
    assert main(["score", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(f"wrote the score report to {tmp_path / 'good.report.json'}")
    report = json.loads((tmp_path / "good.report.json").read_text())
    assert Draft7Validator(contract.json_schema("score-report")).is_valid(report)


@pytest.mark.slow
def test_cli_json_output_is_only_json(tmp_path):
    bad_doc = template()
    del bad_doc["model"]
    bad = write(tmp_path, bad_doc, "bad.json")
    result = subprocess.run([sys.executable, "-m", "icgbench", "validate", "--json", str(bad)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert out["valid"] is False and out["stage"] == "schema"
    assert out["errors"] == ['/: "model" is required'] and out["count"] == 1
    good = write(tmp_path, template(), "good.json")
    result = subprocess.run([sys.executable, "-m", "icgbench", "score", "--json", str(good),
                             "--out", str(tmp_path / "r.json")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["auroc"] == 0.5


def test_cli_unknown_option_is_a_usage_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "icgbench", "score", "--bogus", "x"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "unrecognized arguments" in result.stderr


def test_template_command_writes_a_valid_submission(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["submission", "template", "--variant", "nonlinear_obs", "--out", str(out)]) == 0
    assert f"to {out}" in capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert set(doc) >= {"risk_prediction", "latent_recovery", "intervention_conformity",
                        "cross_host_generalization"}
    assert score(out).summary["auroc"] == 0.5
    assert main(["submission", "template", "--variant", "nope", "--out", str(out)]) == 2


def test_a_block_no_task_can_grade_is_invalid():
    doc = template()
    for block in ("risk_prediction", "latent_recovery", "intervention_conformity",
                  "structure_recovery"):
        del doc[block]
    assert errors_of(doc) == [
        "/cross_host_generalization: no task can grade this block without risk_prediction "
        "(cross_host_generalization needs it)"]


def test_the_task_registry_finds_every_task_module_in_grading_order():
    from icgbench.tasks import TASKS, _discover

    found = _discover()
    assert list(found) == ["risk_prediction", "latent_recovery", "intervention_conformity",
                           "cross_host_generalization", "structure_recovery"]
    assert all(found[name].name == TASKS[name].name == name for name in found)


def test_a_repeated_edge_names_its_position_and_the_first_entry():
    doc = template()
    block = doc["structure_recovery"]
    for key in ("source", "target", "score"):
        block[key].insert(5, block[key][2])
    errors = errors_of(doc)
    assert any(e.startswith("/structure_recovery/source/5: edge ") and "repeats entry 2" in e
               for e in errors), errors


def test_integers_beyond_a_double_keep_their_sign():
    from icgbench.scorer.columns import Columns

    numbers = Columns().numbers([10**400, -(10**400), 3])
    assert numbers[0] == float("inf") and numbers[1] == float("-inf") and numbers[2] == 3.0


def test_a_file_over_the_limit_is_invalid_for_its_size(tmp_path):
    from icgbench.scorer.parse import read_file

    path = tmp_path / "big.json"
    path.write_bytes(b" " * 101)
    with pytest.raises(SubmissionInvalid) as caught:
        read_file(path, max_bytes=100)
    assert caught.value.stage == "size"
    assert caught.value.errors == ["/: file is over the limit of 100 bytes"]


def test_the_release_root_given_is_the_one_graded_against(tmp_path):
    with pytest.raises(UsageError):
        score(template(), root=tmp_path)  # no release there


def test_timings_add_up():
    t = score(template()).document["timings"]
    parts = ("parse_seconds", "schema_seconds", "truth_seconds", "semantic_seconds",
             "score_seconds")
    assert all(0 <= t[p] <= t["total_seconds"] for p in parts)
    assert sum(t[p] for p in parts) <= t["total_seconds"] + 1e-6
    assert t["total_seconds"] < 300


def test_the_summary_repeats_each_headline_metric_of_its_task():
    doc = score(template()).document
    tasks, summary = doc["tasks"], doc["summary"]
    pairs = {"auroc": ("risk_prediction", "auroc"), "r2_mean": ("latent_recovery", "r2_mean"),
             "conformity": ("intervention_conformity", "responsive_dgp_conformity"),
             "prior_conformity_tolerant": ("intervention_conformity",
                                           "prior_conformity_tolerant"),
             "auroc_target": ("cross_host_generalization", "auroc_target"),
             "transfer_gap": ("cross_host_generalization", "transfer_gap")}
    for key, (task, metric) in pairs.items():
        assert summary[key] == tasks[task]["metrics"][metric], key
        assert summary[key] is not None, key
    assert summary["composite"] == pytest.approx(
        (summary["auroc"] + summary["r2_mean"] + summary["conformity"]) / 3, abs=1e-15)


def test_a_parsed_document_is_hashed_as_its_json_text():
    doc = template()
    from_dict = score(doc).document["submission"]
    from_bytes = score(json.dumps(doc).encode()).document["submission"]
    assert from_dict["sha256"] == from_bytes["sha256"]
    assert from_dict["bytes"] == from_bytes["bytes"] == len(json.dumps(doc).encode())


def test_a_parsed_document_holding_nan_is_not_json():
    doc = template()
    doc["risk_prediction"]["proba"][0] = float("nan")
    assert errors_of(doc)[0].startswith("/: not a JSON document (")


def test_each_stage_names_itself():
    with pytest.raises(SubmissionInvalid) as schema:
        score({**template(), "seed": -1})
    assert schema.value.stage == "schema"
    doc = template()
    doc["risk_prediction"]["subject_id"][0] = "TE999999"
    with pytest.raises(SubmissionInvalid) as semantic_stage:
        score(doc)
    assert semantic_stage.value.stage == "semantic"


def test_a_tier_option_other_than_the_submissions_is_a_usage_error():
    with pytest.raises(UsageError, match="--tier full but the submission is for the small"):
        score(template(), tier="full")
