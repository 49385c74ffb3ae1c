"""The model-free panel: answers that fit nothing, and their scores, the floors.

A normalized score of 0 means "no better than the best answer built without a model from
what the package ships": the public tables, the source and the documentation (the
families the truth is drawn from, the prior, the registry), other cohorts' truth, and
guesses in expectation. :mod:`.answers` defines the panel, :mod:`.inputs` reads what the
answers may read from a cohort's public tables, and :mod:`.panel` grades every answer
against the cohort's truth when the cohort is generated: the truth table
``model_free_scores`` holds the results, and each normalized metric's floor is the best of
them (or the metric's chance level, when that is higher).
"""
