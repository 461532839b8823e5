"""Build the API reference pages at build time, one per module (the mkdocstrings recipe).

Run by mkdocs-gen-files: every module of the packages gets a page whose only content is its
mkdocstrings directive, and ``reference/SUMMARY.md`` lists them for mkdocs-literate-nav. A module
moved, split or added shows up at the next build; nothing here names a module.
"""

from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cluedo_env", "agents", "experiments")

nav = mkdocs_gen_files.Nav()
for package in PACKAGES:
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if any(part.startswith("_") and part != "__init__" for part in parts) or "data" in parts:
            continue
        if not all((ROOT / Path(*parts[:i]) / "__init__.py").exists() for i in range(1, len(parts))):
            continue  # a file in a folder that is no package (lm-eval's task folder, read by path)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            page = Path(*parts, "index.md")
        else:
            page = Path(*parts).with_suffix(".md")
        nav[parts] = page.as_posix()
        with mkdocs_gen_files.open(Path("reference", page), "w") as file:
            file.write(f"::: {'.'.join(parts)}\n")
        mkdocs_gen_files.set_edit_path(Path("reference", page), path.relative_to(ROOT))

with mkdocs_gen_files.open("reference/index.md", "w") as file:
    file.write("# API reference\n\nGenerated from the docstrings at each build, one page per module:\n\n")
    file.writelines(f"- [`{package}`]({package}/index.md)\n" for package in PACKAGES)

with mkdocs_gen_files.open("reference/SUMMARY.md", "w") as summary:
    summary.write("* [Overview](index.md)\n")
    summary.writelines(nav.build_literate_nav())
