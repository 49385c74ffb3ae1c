"""The Frictionless Table Schemas of every release table, written to ``schemas/tables/``.

The JSON files are the published contract: the release writer, the verifier and the data
dictionary read them. They are generated from the benchmark vocabulary by ``make contract``
(``python -m icgbench.release.table_schemas``), and a test fails when the committed files
and this module disagree, so a vocabulary change cannot silently drift from the contract.

Foreign keys name the referenced table (``"resource": "subjects"``); the release
descriptor resolves that to the resource of the same cohort and format.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icgbench.contract import dumps
from icgbench.contract.vocabulary import (
    ARCHETYPES,
    FRAILTY,
    HOST_TRAITS,
    KCCS,
    MODALITIES,
    OUTCOME_NODE,
    PROXIED_TRAITS,
    RISK_STATE,
    SPLITS,
    STATES,
    feature_columns,
    kcc_assay_column,
    mixture_column,
    proxy_column,
)
from icgbench.generator.interventions import intervention_names
from icgbench.io.atomic import write_text

Field = dict[str, Any]

ID_PATTERN = "^(TR|TE|TG)[0-9]{6,9}$"
NODE_KINDS = ["kcc_assay", "state", "outcome"]
EDGE_KINDS = ["kcc_state", "state_state", "state_outcome"]

#: Table name -> (role, one-line description). Order is the release order.
TABLES: dict[str, tuple[str, str]] = {
    "subjects": ("public", "One row per subject: split, domain, covariates, exposure, KCC "
                 "assay readout and host proxies."),
    "observations": ("public", "One row per (subject, visit): omics module readouts, "
                     "mutational signature activities and mutation count; null where masked."),
    "masks": ("public", "One row per (subject, visit): whether each modality was observed."),
    "train_outcomes": ("public", "The binary adverse outcome of every train subject."),
    "train_states": ("public", "Latent qAOP states of train subjects at every visit and at "
                     "the end of follow-up: the concept labels a bottleneck model trains on."),
    "interventions": ("public", "The do_* registry: which states each intervention scales, "
                      "by how much, and the structural prior's expected direction."),
    "structural_prior": ("public", "The structural prior: expected sign and nominal weight "
                         "of each state's effect on risk. The prior's risk equation built "
                         "from them is risk = 1 - exp(-exp(intercept + sum of prior_sign * "
                         "prior_weight * (state - mean) / sd)), state at the end of "
                         "follow-up, mean and sd (ddof 0) over the train split's subjects, "
                         "intercept such that the mean risk over them is their event rate "
                         "(docs/dgp.md)."),
    "prior_graph": ("public", "The structural prior's graph: a noisy view of the family of "
                    "mechanisms the cohort's graph is drawn from (edges missing, reversed and "
                    "spurious at documented rates), not the cohort's graph."),
    "nodes": ("public", "The node set of the causal graph (structure-recovery task)."),
    "test_outcomes": ("truth", "Outcome and true event probability of every test and "
                      "target-test subject."),
    "test_states": ("truth", "Latent qAOP states of test and target-test subjects at every "
                    "visit and at the end of follow-up."),
    "kcc_activations": ("truth", "True host-modulated KCC activation of every subject."),
    "host_latents": ("truth", "True host susceptibility traits of every subject."),
    "counterfactual_risks": ("truth", "True event probability of every test and target-test "
                             "subject, factual and under each intervention."),
    "reachable_risks": ("truth", "Event probability of every test and target-test subject "
                        "with the frailty integrated out, factual and under each "
                        "intervention: the best any function of the subject's states can "
                        "predict (the reachable ceiling)."),
    "intervention_effects": ("truth", "Per intervention: prior direction, true (DGP) "
                             "direction and mean risk change."),
    "graph": ("truth", "The true causal graph over the public node set, with signs and "
              "weights."),
    "hidden_confounders": ("truth", "Each bottleneck state an unobserved host factor "
                           "confounds (no rows in a cohort without one): the factor, drawn "
                           "per subject and never published, pushes the state in its "
                           "risk-raising direction and lowers the hazard through no state, "
                           "so the state's association with the event can have the opposite "
                           "sign to its causal effect (docs/dgp.md)."),
    "model_free_scores": ("truth", "The model-free panel's scores on the cohort: every "
                          "answer built without fitting anything (docs/scoring.md), graded "
                          "on every normalized metric it has, and the chance level. The "
                          "floor of a metric's normalized score is the row marked floor: "
                          "the answer chosen without the cohort's held-out subjects."),
}


def _f(name: str, type_: str, description: str, **constraints: Any) -> Field:
    field: Field = {"name": name, "type": type_, "description": description}
    if constraints:
        field["constraints"] = constraints
    return field


def _id(description: str = "Subject identifier: TR (train), TE (test) or TG (target test) "
        "and a number of at least six digits.",
        unique: bool = False) -> Field:
    extra = {"unique": True} if unique else {}
    return _f("subject_id", "string", description, required=True, pattern=ID_PATTERN, **extra)


def _state_fields(truth: bool) -> list[Field]:
    """The nine states; the truth also has latent_risk (a function of the cohort's outcome
    weights: never in a public table)."""
    out = []
    for s in STATES:
        bounds = {"minimum": 1e-4, "maximum": 0.999} if s == "clone_fraction" else {"minimum": 0}
        out.append(_f(s, "number", f"Latent qAOP state {s}.", required=True, **bounds))
    if truth:
        out.append(_f(RISK_STATE, "number",
                      "Derived state: standardised, signed sum of the nine states that drives "
                      "the monthly hazard (the cohort's outcome weights).", required=True))
    return out


def _month(name: str, description: str) -> Field:
    return _f(name, "integer", description, required=True, minimum=0)


def _fk(fields: list[str], table: str, ref: list[str] | None = None) -> dict[str, Any]:
    return {"fields": fields, "reference": {"resource": table, "fields": ref or fields}}


def _schema(fields: list[Field], key: list[str], fks: list[dict[str, Any]] | None = None
            ) -> dict[str, Any]:
    schema: dict[str, Any] = {"fields": fields, "missingValues": [""], "primaryKey": key}
    if fks:
        schema["foreignKeys"] = fks
    return schema


def _probability(name: str, description: str) -> Field:
    return _f(name, "number", description, required=True, minimum=0, maximum=1)


def build_table_schemas() -> dict[str, dict[str, Any]]:
    """Every table's Table Schema, keyed by table name, in release order."""
    subjects_fk = [_fk(["subject_id"], "subjects")]
    direction = {"enum": [-1, 0, 1]}
    features = feature_columns()

    subjects = [
        _id(unique=True),
        _f("split", "string", "Split: train, test (source domain) or target_test.",
           required=True, enum=list(SPLITS)),
        _f("domain", "string", "Host domain: source (train, test) or target (shifted host).",
           required=True, enum=["source", "target"]),
        _f("age", "integer", "Age at baseline, years.", required=True, minimum=18, maximum=100),
        _f("sex", "string", "Sex (F or M).", required=True, enum=["F", "M"]),
        _f("archetype", "string", "Dominant exposure archetype.", required=True,
           enum=list(ARCHETYPES)),
        _f("dose", "number", "Exposure dose (relative units, log-normal around 1).",
           required=True, minimum=0),
    ]
    subjects += [_probability(mixture_column(a), f"Weight of archetype {a} in the exposure "
                              "(one-hot in discrete-archetype variants).") for a in ARCHETYPES]
    subjects += [_probability(kcc_assay_column(k), f"Screening-assay readout of KCC {k} for "
                              "the subject's exposure (noisy, observed).") for k in KCCS]
    subjects += [_f(proxy_column(t), "number", f"Noisy observed proxy of host trait {t}.",
                    required=True) for t in PROXIED_TRAITS]

    observations = [_id(), _month("visit_month", "Visit month (0 = baseline).")]
    for modality, columns in features.items():
        for c in columns:
            if c == "mut_total_count":
                observations.append(_f(c, "integer", "Total mutation count (Poisson); null "
                                       "when the mutational modality is masked.", minimum=0))
            else:
                kind, name = c.split("__", 1)
                what = {"tx": "Transcriptomic module", "epi": "Epigenomic module",
                        "sig": "Mutational signature activity"}[kind]
                observations.append(_f(c, "number", f"{what} {name} ({modality}); null when "
                                       "masked."))
    masks = [_id(), _month("visit_month", "Visit month (0 = baseline).")]
    masks += [_f(m, "boolean", f"True when the {m} modality was observed at this visit.",
                 required=True) for m in MODALITIES]

    train_outcomes = [_id(unique=True),
                      _f("event", "integer", "Adverse outcome by end of follow-up (1 = event).",
                         required=True, enum=[0, 1])]
    train_states = [_id(), _month("month", "Month of follow-up (visits and end of follow-up)."),
                    *_state_fields(truth=False)]

    interventions = [
        _f("intervention", "string", "Intervention name.", required=True,
           enum=intervention_names()),
        _f("state", "string", "Bottleneck state the intervention scales.", required=True,
           enum=list(STATES)),
        _f("scale", "number", "Multiplier applied to the state for the whole follow-up.",
           required=True, exclusiveMinimum=0),
        _f("prior_direction", "integer", "Expected sign of the risk change under the "
           "structural prior.", required=True, **direction),
    ]
    prior = [
        _f("state", "string", "Bottleneck state.", required=True, unique=True,
           enum=list(STATES)),
        _f("prior_sign", "integer", "Expected sign of the state's effect on risk.",
           required=True, enum=[-1, 1]),
        _f("prior_weight", "number", "The prior's nominal magnitude of the state's "
           "standardised effect on the log hazard.", required=True, minimum=0),
    ]
    node_names = [kcc_assay_column(k) for k in KCCS] + list(STATES) + [OUTCOME_NODE]
    prior_graph = [
        _f("source", "string", "Cause node.", required=True, enum=node_names),
        _f("target", "string", "Effect node.", required=True, enum=node_names),
        _f("kind", "string", "Edge kind.", required=True, enum=EDGE_KINDS),
        _f("sign", "integer", "Sign of the effect the prior expects.", required=True,
           enum=[-1, 1]),
    ]
    nodes = [
        _f("node", "string", "Node name: a subjects column (KCC assay), a state column of "
           "train_states (end of follow-up) or the outcome (train_outcomes.event).",
           required=True, unique=True, enum=node_names),
        _f("kind", "string", "Node kind.", required=True, enum=NODE_KINDS),
    ]

    test_outcomes = [
        _id(unique=True),
        _f("split", "string", "Split of the subject.", required=True,
           enum=["test", "target_test"]),
        _f("event", "integer", "Adverse outcome by end of follow-up (1 = event).",
           required=True, enum=[0, 1]),
        _probability("true_risk", "True event probability under the DGP."),
    ]
    test_states = [
        _id(),
        _f("split", "string", "Split of the subject.", required=True,
           enum=["test", "target_test"]),
        _month("month", "Month of follow-up (visits and end of follow-up)."),
        *_state_fields(truth=True),
    ]
    kcc_activations = [_id(unique=True)] + [
        _probability(k, f"True activation of KCC {k} (profile x host modulation).")
        for k in KCCS
    ]
    host_latents = [_id(unique=True)] + [
        _f(t, "number", f"True host trait {t}.", required=True, minimum=0) for t in HOST_TRAITS
    ] + [_f(FRAILTY, "number", "Frailty: the subject's constant log-hazard offset, acting on "
            "the outcome through no state (no observation reveals it).", required=True)]
    counterfactual_risks = [
        _id(unique=True),
        _f("split", "string", "Split of the subject.", required=True,
           enum=["test", "target_test"]),
        _probability("risk", "True event probability without intervention."),
    ] + [_probability(f"risk__{n}", f"True event probability under {n}.")
         for n in intervention_names()]
    reachable_risks = [
        _id(unique=True),
        _f("split", "string", "Split of the subject.", required=True,
           enum=["test", "target_test"]),
        _probability("risk", "Event probability given the subject's states, the frailty "
                     "integrated out, without intervention."),
    ] + [_probability(f"risk__{n}", f"Event probability given the states under {n}, the "
                      "frailty integrated out.") for n in intervention_names()]
    intervention_effects = [
        _f("intervention", "string", "Intervention name.", required=True, unique=True,
           enum=intervention_names()),
        _f("prior_direction", "integer", "Direction expected by the structural prior.",
           required=True, **direction),
        _f("dgp_direction", "integer", "True direction: sign of the mean risk change on the "
           "test split.", required=True, **direction),
        _f("mean_effect", "number", "Mean true risk change on the test split.", required=True,
           minimum=-1, maximum=1),
        _f("mean_effect_target", "number", "Mean true risk change on the target-test split.",
           required=True, minimum=-1, maximum=1),
    ]
    graph = [
        _f("source", "string", "Cause node.", required=True, enum=node_names),
        _f("target", "string", "Effect node.", required=True, enum=node_names),
        _f("kind", "string", "Edge kind.", required=True, enum=EDGE_KINDS),
        _f("sign", "integer", "Sign of the effect.", required=True, enum=[-1, 1]),
        _f("weight", "number", "Coefficient of the cause in the effect's update equation "
           "(absolute value).", required=True, minimum=0),
    ]
    hidden_confounders = [
        _f("state", "string", "The confounded state.", required=True, unique=True,
           enum=list(STATES)),
        _f("state_step", "number", "The factor's monthly push on the state, in the state's "
           "units per standard deviation of the factor, in the state's risk-raising "
           "direction.", required=True, minimum=0),
        _f("hazard_coefficient", "number", "The factor's coefficient in the log hazard per "
           "standard deviation of the factor, acting through no state (negative: it lowers "
           "the hazard).", required=True, maximum=0),
        _f("causal_sign", "integer", "The sign of the state's causal effect on the event "
           "(the structural prior's: confounding reverses the association, not the effect).",
           required=True, enum=[-1, 1]),
    ]
    node_fk = [_fk(["source"], "nodes", ["node"]), _fk(["target"], "nodes", ["node"])]
    name = r"^[a-z][a-z0-9_.]*$"
    model_free_scores = [
        _f("answer", "string", "The panel's answer (icgbench.model_free.answers), or "
           "chance (the metric's chance level).", required=True,
           pattern=r"^[a-z][A-Za-z0-9_.]*$"),
        _f("task", "string", "The task the metric belongs to.", required=True, pattern=name),
        _f("metric", "string", "A metric of the task that enters its category's normalized "
           "score.", required=True, pattern=name),
        _f("value", "number", "The answer's value of the metric on the cohort's held-out "
           "subjects (a guess: its mean over the equally likely guesses), to 6 decimals.",
           required=True),
        _f("selection", "number", "The answer's score on the cohort's train split, where "
           "the train split's truth is public (risk and transfer: the AUROC of its train "
           "risk against the train events; latent: the mean R^2 of its train states), to 6 "
           "decimals; empty elsewhere."),
        _f("floor", "boolean", "True for the one answer per metric whose value is the "
           "floor: the answer with the best mean value over the variant's cohorts of the "
           "board's tier, the same for every cohort of the variant (docs/scoring.md).",
           required=True),
    ]

    return {
        "subjects": _schema(subjects, ["subject_id"]),
        "observations": _schema(observations, ["subject_id", "visit_month"], subjects_fk),
        "masks": _schema(masks, ["subject_id", "visit_month"], subjects_fk),
        "train_outcomes": _schema(train_outcomes, ["subject_id"], subjects_fk),
        "train_states": _schema(train_states, ["subject_id", "month"], subjects_fk),
        "interventions": _schema(interventions, ["intervention", "state"]),
        "structural_prior": _schema(prior, ["state"]),
        "prior_graph": _schema(prior_graph, ["source", "target"], node_fk),
        "nodes": _schema(nodes, ["node"]),
        "test_outcomes": _schema(test_outcomes, ["subject_id"], subjects_fk),
        "test_states": _schema(test_states, ["subject_id", "month"], subjects_fk),
        "kcc_activations": _schema(kcc_activations, ["subject_id"], subjects_fk),
        "host_latents": _schema(host_latents, ["subject_id"], subjects_fk),
        "counterfactual_risks": _schema(counterfactual_risks, ["subject_id"], subjects_fk),
        "reachable_risks": _schema(reachable_risks, ["subject_id"], subjects_fk),
        "intervention_effects": _schema(intervention_effects, ["intervention"]),
        "graph": _schema(graph, ["source", "target"], node_fk),
        "hidden_confounders": _schema(hidden_confounders, ["state"]),
        "model_free_scores": _schema(model_free_scores, ["answer", "task", "metric"]),
    }


def schema_documents() -> dict[str, dict[str, Any]]:
    """The files as published: each schema with its ``$schema``, title and role."""
    docs = {}
    for name, schema in build_table_schemas().items():
        role, description = TABLES[name]
        docs[name] = {
            "$schema": "https://datapackage.org/profiles/2.0/tableschema.json",
            "title": name,
            "description": description,
            "icgbench:role": role,
            **schema,
        }
    return docs


def write_all(top_level: Path) -> list[Path]:
    """Write ``schemas/tables/*.json`` (and the index) under ``top_level``."""
    folder = top_level / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, doc in schema_documents().items():
        path = folder / f"{name}.json"
        write_text(path, dumps(doc))
        written.append(path)
    index = [{"table": name, "role": role, "description": description}
             for name, (role, description) in TABLES.items()]
    write_text(folder / "index.json", dumps(index))
    written.append(folder / "index.json")
    return written

