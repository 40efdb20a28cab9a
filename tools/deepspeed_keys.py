#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ds_config keys of a DeepSpeed version, from its source.

    tools/deepspeed_keys.py REPO COMMIT > data/engines/deepspeed-keys-SHORT.tsv

REPO is a clone of deepspeedai/DeepSpeed (a bare one will do: files are
read with `git show COMMIT:PATH`, nothing is fetched). Output: a header
naming the commit, then `SCOPE<TAB>KEY` lines:

  config        every string constant of deepspeed/runtime/constants.py
                (the top-level keys and the keys of the small sections,
                bf16/fp16 "enabled", data_types "grad_accum_dtype",
                optimizer "type", ...), and the section names defined
                beside their sections (zero_optimization,
                activation_checkpointing, tensor_parallel, expert_parallel);
  activation_checkpointing  the ACT_CHKPT_* constants of
                deepspeed/runtime/activation_checkpointing/config.py;
  zero_optimization  the fields (and aliases) of DeepSpeedZeroConfig in
                deepspeed/runtime/zero/config.py;
  tensor_parallel    the fields of TPTrainingConfig
                (deepspeed/runtime/tensor_parallel/config.py);
  expert_parallel    the keys parse_autoep_config reads
                (deepspeed/module_inject/auto_ep_config.py);
  zero_optimization.offload_optimizer, zero_optimization.offload_param
                the fields of DeepSpeedZeroOffloadOptimizerConfig and
                DeepSpeedZeroOffloadParamConfig
                (deepspeed/runtime/zero/offload_config.py), and
  zero_optimization.offload_optimizer.device (and offload_param.device)
                the values of OffloadDeviceEnum.

The export tests check every key trainplan writes against this list.
"""
import ast
import subprocess
import sys


def show(repo, commit, path):
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def string_constants(src, prefix=""):
    for n in ast.parse(src).body:
        if (isinstance(n, ast.Assign) and len(n.targets) == 1 and
                isinstance(n.targets[0], ast.Name) and n.targets[0].id.startswith(prefix) and
                isinstance(n.value, ast.Constant) and isinstance(n.value.value, str) and
                n.value.value.isidentifier()):
            yield n.value.value


def model_fields(src, cls_name):
    for n in ast.walk(ast.parse(src)):
        if isinstance(n, ast.ClassDef) and n.name == cls_name:
            for f in n.body:
                if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name):
                    yield f.target.id
                    # Field(..., alias="x")
                    if isinstance(f.value, ast.Call):
                        for kw in f.value.keywords:
                            if kw.arg == "alias" and isinstance(kw.value, ast.Constant):
                                yield kw.value.value


def enum_values(src, cls_name):
    """The string values of an Enum class (OffloadDeviceEnum: none, cpu, nvme)."""
    for n in ast.walk(ast.parse(src)):
        if isinstance(n, ast.ClassDef) and n.name == cls_name:
            for f in n.body:
                if (isinstance(f, ast.Assign) and isinstance(f.value, ast.Constant) and
                        isinstance(f.value.value, str)):
                    yield f.value.value


def get_keys(src, func):
    for n in ast.walk(ast.parse(src)):
        if isinstance(n, ast.FunctionDef) and n.name == func:
            for c in ast.walk(n):
                if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                        c.func.attr == "get" and c.args and isinstance(c.args[0], ast.Constant)):
                    yield c.args[0].value
                if isinstance(c, ast.Compare) and isinstance(c.left, ast.Constant):
                    yield c.left.value  # "key" in param_dict


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    repo, commit = sys.argv[1:]
    full, date = subprocess.run(["git", "-C", repo, "log", "-1", "--format=%H %cs", commit],
                                check=True, capture_output=True, text=True).stdout.split()
    rows = set()
    for k in string_constants(show(repo, full, "deepspeed/runtime/constants.py")):
        rows.add(("config", k))
    # the section names defined beside their sections
    for path, prefix in (("deepspeed/runtime/config.py", "EXPERT_PARALLEL"),
                         ("deepspeed/runtime/zero/config.py", "ZERO_OPTIMIZATION"),
                         ("deepspeed/runtime/activation_checkpointing/config.py", "ACT_CHKPT")):
        for k in string_constants(show(repo, full, path), prefix):
            rows.add(("config", k))
    for k in get_keys(show(repo, full, "deepspeed/runtime/tensor_parallel/config.py"),
                      "get_tensor_parallel_config"):
        if isinstance(k, str):
            rows.add(("config", k))
    for k in string_constants(show(repo, full,
                                   "deepspeed/runtime/activation_checkpointing/config.py"),
                              "ACT_CHKPT_"):
        rows.add(("activation_checkpointing", k))
    for k in model_fields(show(repo, full, "deepspeed/runtime/zero/config.py"),
                          "DeepSpeedZeroConfig"):
        rows.add(("zero_optimization", k))
    for k in model_fields(show(repo, full, "deepspeed/runtime/tensor_parallel/config.py"),
                          "TPTrainingConfig"):
        rows.add(("tensor_parallel", k))
    for k in get_keys(show(repo, full, "deepspeed/module_inject/auto_ep_config.py"),
                      "parse_autoep_config"):
        if isinstance(k, str):
            rows.add(("expert_parallel", k))
    offload = show(repo, full, "deepspeed/runtime/zero/offload_config.py")
    for cls, scope in (("DeepSpeedZeroOffloadOptimizerConfig",
                        "zero_optimization.offload_optimizer"),
                       ("DeepSpeedZeroOffloadParamConfig", "zero_optimization.offload_param")):
        for k in model_fields(offload, cls):
            rows.add((scope, k))
        for v in enum_values(offload, "OffloadDeviceEnum"):
            rows.add((scope + ".device", v))
    print("# DeepSpeed ds_config keys (GENERATED: do not edit).")
    print("# Repository: deepspeedai/DeepSpeed")
    print(f"# Commit: {full} ({date})")
    print(f"# Regenerate: tools/deepspeed_keys.py REPO {full[:8]}")
    print("# scope\tkey")
    for scope, key in sorted(rows):
        print(f"{scope}\t{key}")


if __name__ == "__main__":
    main()
