"""The model-free panel: answers that fit nothing, and their scores, the floors.

A normalized score of 0 means "no better than an answer built without a model from what the
package ships": the public tables, the source and the documentation (the families the
truth is drawn from, the prior, the registry), other cohorts' truth, and guesses.
:mod:`.answers` defines the panel, :mod:`.inputs` reads what the answers may read from a
cohort's public tables, :mod:`.donors` what they may copy of other cohorts, and
:mod:`.panel` grades every answer against the cohort's truth when the release is frozen:
the truth table ``model_free_scores`` holds the results, and :mod:`.floors` marks each
normalized metric's floor, one answer per variant chosen over the board tier's cohorts.
"""
