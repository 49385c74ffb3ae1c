"""``make docs``: regenerate docs/cli.md, docs/data_dictionary.md, docs/tasks.md and the
generated sections of docs/dgp.md and docs/scoring.md."""

from pathlib import Path

from icgbench.io.atomic import write_text
from icgbench.reference import cli, data_dictionary, generated, tasks

for target, text in ((Path("docs/cli.md"), cli.cli_markdown()),
                     (Path("docs/data_dictionary.md"), data_dictionary.markdown()),
                     (Path("docs/tasks.md"), tasks.markdown()),
                     *generated.regenerate(Path(".")).items()):
    write_text(target, text)
    print(f"wrote {target}")
