"""Reference documentation generated from the code: CLI, data dictionary, tasks."""
