#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The configuration fields of a torchtitan version, from its source.

    tools/torchtitan_fields.py REPO COMMIT KIND > data/engines/torchtitan-KIND-SHORT.tsv

REPO is a clone of pytorch/torchtitan (a bare one will do: files are read
with `git show COMMIT:PATH`, nothing is fetched), COMMIT the version, and
KIND the form of the configuration it reads:

  toml    the job TOML of the releases before 2026-02-23: every [section]
          is a field of JobConfig in torchtitan/config/job_config.py, and
          its keys are the fields of that section's dataclass;
  python  the Python configurations since then (a function returning
          Trainer.Config, selected with --module/--config): the fields of
          Trainer.Config (torchtitan/trainer.py), TrainingConfig and
          ParallelismConfig (torchtitan/config/configs.py), as
          `config.SECTION.FIELD` paths, and the activation checkpointing
          policies of torchtitan/distributed/activation_checkpoint.py.

Output: a header naming the commit, then one line per field:
`SECTION.FIELD<TAB>TYPE<TAB>DEFAULT` (top-level fields have no section).
The export tests check every key trainplan writes against this list.
"""
import ast
import subprocess
import sys


def show(repo, commit, path):
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def classes(tree):
    """Every class by dotted name (nested classes as Outer.Inner)."""
    out = {}

    def walk(node, prefix):
        for n in ast.iter_child_nodes(node):
            if isinstance(n, ast.ClassDef):
                name = prefix + n.name
                out[name] = n
                walk(n, name + ".")

    walk(tree, "")
    return out


def fields(cls):
    """(name, type, default) of each annotated field of a dataclass body."""
    for n in cls.body:
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            default = ast.unparse(n.value) if n.value is not None else "-"
            yield n.target.id, ast.unparse(n.annotation), default.replace("\n", " ")


def section_class(typ, known):
    """The dataclass a field's annotation names (`Training`, `X.Config`)."""
    return typ if typ in known else None


def toml_rows(repo, commit):
    cls = classes(ast.parse(show(repo, commit, "torchtitan/config/job_config.py")))
    for sec, typ, _ in fields(cls["JobConfig"]):
        c = section_class(typ, cls)
        if c:
            for name, t, d in fields(cls[c]):
                yield f"{sec}.{name}", t, d


def python_rows(repo, commit):
    trainer = classes(ast.parse(show(repo, commit, "torchtitan/trainer.py")))
    configs = classes(ast.parse(show(repo, commit, "torchtitan/config/configs.py")))
    sections = {"TrainingConfig": "training", "ParallelismConfig": "parallelism",
                "CompileConfig": "compile"}
    for name, t, d in fields(trainer["Trainer.Config"]):
        yield name, t, d
        sec = sections.get(t)
        if sec:
            for n2, t2, d2 in fields(configs[t]):
                yield f"{sec}.{n2}", t2, d2
    ac = classes(ast.parse(show(repo, commit, "torchtitan/distributed/activation_checkpoint.py")))
    for policy in ("FullAC", "SelectiveAC", "MemoryBudgetAC"):
        if policy + ".Config" in ac:
            yield f"activation_checkpoint={policy}.Config", "policy", "-"


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("toml", "python"):
        sys.exit(__doc__)
    repo, commit, kind = sys.argv[1:]
    full = subprocess.run(["git", "-C", repo, "log", "-1", "--format=%H %cs", commit], check=True,
                          capture_output=True, text=True).stdout.split()
    rows = toml_rows(repo, full[0]) if kind == "toml" else python_rows(repo, full[0])
    print("# torchtitan configuration fields (GENERATED: do not edit).")
    print("# Repository: pytorch/torchtitan")
    print(f"# Commit: {full[0]} ({full[1]})")
    print(f"# Form: {kind}")
    print(f"# Regenerate: tools/torchtitan_fields.py REPO {full[0][:8]} {kind}")
    print("# path\ttype\tdefault")
    for row in rows:
        print("\t".join(row))


if __name__ == "__main__":
    main()
