#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""megatron_args: the command-line arguments of Megatron-LM, as data.

    python3 tools/megatron_args.py --git-dir MEGATRON/.git --commit SHA > OUT.tsv
    python3 tools/megatron_args.py --source-dir TREE [--commit SHA] > OUT.tsv

Reads megatron/training/arguments.py of a Megatron-LM source tree (a git
repository at a named commit, or a plain directory) and writes one line per
option string that pretrain_gpt.py's parser accepts: every add_argument call
reachable from add_megatron_arguments(), and from the functions that
pretrain_gpt.py passes as extra_args_provider (add_modelopt_args of
megatron/post_training/arguments.py, registered when NVIDIA ModelOpt
imports), and every argument that
ArgumentGroupFactory(SomeConfig).build_group() derives from a dataclass's
fields (megatron/training/argument_utils.py: a bool field becomes a switch,
store_true when its default is False, otherwise store_false spelled --no-X
and --disable-X; list[T] takes nargs '+'; Literal[...] gives choices; the
field's metadata "argparse_meta" overrides all of it).

Nothing is downloaded and nothing of Megatron-LM is imported or run: the
source is parsed with `ast` and only literal values are read. A value the
parser cannot read as a literal (a computed choices list, say) is written as
"?"; a construct it does not understand (an option string that is not a
literal) is an error, so that a refresh never silently loses a name.

Columns (tab-separated, sorted by name):
    name     the option string, e.g. --num-layers
    dest     the attribute it sets (aliases share one)
    action   store, store_true, store_false, store_const, append, count,
             BooleanOptionalAction, ... (a custom Action class by its name)
    nargs    0 for a switch (takes no value); 1 for one value (argparse's
             nargs=None); N, ?, * or + as argparse
    choices  the allowed values, comma-separated; - for any; ? if computed

Conditions are not evaluated: an argument registered only under an `if`
(e.g. when an optional package imports) is listed.
"""
import argparse
import ast
import os
import subprocess
import sys

ARGS_FILE = "megatron/training/arguments.py"
ENTRY = "add_megatron_arguments"
SCRIPT = "pretrain_gpt.py"  # its extra_args_provider adds arguments too
REPO = "NVIDIA/Megatron-LM"
SWITCH_ACTIONS = {"store_true", "store_false", "store_const", "append_const", "count",
                  "help", "version", "BooleanOptionalAction"}


class Error(Exception):
    pass


# ---- the source tree ---------------------------------------------------

class Tree:
    """Files of Megatron-LM at one commit (git) or in one directory."""

    def __init__(self, git_dir=None, commit=None, source_dir=None):
        self.git_dir, self.commit, self.source_dir = git_dir, commit, source_dir

    def read(self, path):
        """The text of path (relative to the tree's root), or None."""
        if self.source_dir is not None:
            full = os.path.join(self.source_dir, path)
            if not os.path.isfile(full):
                return None
            with open(full, encoding="utf-8") as f:
                return f.read()
        r = subprocess.run(["git", "--git-dir", self.git_dir, "show",
                            "%s:%s" % (self.commit, path)],
                           capture_output=True)
        return r.stdout.decode("utf-8") if r.returncode == 0 else None

    def commit_date(self):
        if self.git_dir is None:
            return None
        r = subprocess.run(["git", "--git-dir", self.git_dir, "log", "-1",
                            "--format=%cd", "--date=short", self.commit],
                           capture_output=True, check=True)
        return r.stdout.decode().strip()

    def full_commit(self):
        if self.git_dir is None:
            return self.commit
        r = subprocess.run(["git", "--git-dir", self.git_dir, "rev-parse",
                            self.commit + "^{commit}"], capture_output=True, check=True)
        return r.stdout.decode().strip()


class Module:
    """One parsed Python file of the tree."""

    def __init__(self, tree, name, path, text):
        self.tree, self.name, self.path = tree, name, path
        self.ast = ast.parse(text, filename=path)
        self.is_package = path.endswith("__init__.py")
        self.defs = {n.name: n for n in self.ast.body
                     if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        self.consts = {}
        for n in self.ast.body:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name):
                self.consts[n.targets[0].id] = n.value


_modules = {}


def load_module(tree, dotted):
    """The module called dotted, or None if it is not in the tree."""
    if dotted in _modules:
        return _modules[dotted]
    base = dotted.replace(".", "/")
    mod = None
    for path in (base + ".py", base + "/__init__.py"):
        text = tree.read(path)
        if text is not None:
            mod = Module(tree, dotted, path, text)
            break
    _modules[dotted] = mod
    return mod


def absolute(mod, node):
    """The absolute module name of an ImportFrom inside mod."""
    if not node.level:
        return node.module
    parts = mod.name.split(".")
    if not mod.is_package:
        parts = parts[:-1]
    parts = parts[:len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def resolve_class(mod, name, scope=None, depth=0):
    """(module, ClassDef) of the class called name as seen from mod (and
    the function scope, for imports inside a function), or None."""
    if depth > 20:
        return None
    if name in mod.defs and isinstance(mod.defs[name], ast.ClassDef):
        return mod, mod.defs[name]
    bodies = [mod.ast.body]
    if scope is not None:
        bodies.insert(0, list(ast.walk(scope)))
    for body in bodies:
        for n in body:
            if not isinstance(n, ast.ImportFrom):
                continue
            for a in n.names:
                if (a.asname or a.name) == name:
                    target = load_module(mod.tree, absolute(mod, n))
                    if target is not None:
                        found = resolve_class(target, a.name, None, depth + 1)
                        if found:
                            return found
                    sub = load_module(mod.tree, absolute(mod, n) + "." + a.name)
                    if sub is not None:
                        return None
    return None


# ---- literal values ------------------------------------------------------

UNKNOWN = object()


def literal(mod, node):
    """The Python value of a literal node (names of module constants
    followed), or UNKNOWN."""
    if node is None:
        return None
    if isinstance(node, ast.Name) and node.id in mod.consts:
        return literal(mod, mod.consts[node.id])
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return UNKNOWN


def callee(node):
    """'a.b.c' for a Call's function, or ''."""
    f = node.func
    parts = []
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
    return ".".join(reversed(parts))


# ---- one argument --------------------------------------------------------

def default_dest(names):
    longs = [n for n in names if n.startswith("--")]
    return (longs or names)[0].lstrip("-").replace("-", "_")


def rows_for(names, kw, where):
    """The rows of one add_argument(*names, **kw); kw holds literals or
    UNKNOWN, except 'action', which is a string."""
    action = kw.get("action", "store")
    dest = kw.get("dest")
    if dest is None or dest is UNKNOWN:
        dest = default_dest(names)
    nargs = kw.get("nargs")
    if nargs is UNKNOWN:
        raise Error("%s: %s: nargs is not a literal" % (where, names[0]))
    if action in SWITCH_ACTIONS and nargs is None:
        nargs = 0
    elif nargs is None:
        nargs = 1
    choices = kw.get("choices")
    if choices is UNKNOWN:
        choices = "?"
    elif choices is None:
        choices = "-"
    else:
        choices = ",".join(str(c) for c in choices)
    if action == "BooleanOptionalAction":
        names = names + ["--no-" + n[2:] for n in names if n.startswith("--")]
    return [(n, dest, action, str(nargs), choices) for n in names]


def enum_choices(mod, node):
    """choices=list(SomeEnum): the member names (argparse then compares
    SomeEnum[value] with the members); UNKNOWN for anything else."""
    if isinstance(node, ast.Call) and callee(node) == "list" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Name):
        found = resolve_class(mod, node.args[0].id)
        if found and is_enum(*found):
            return enum_members(found[1])
    return UNKNOWN


def action_name(mod, node):
    if node is None:
        return "store"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return "?"


def add_argument_rows(mod, call):
    where = "%s:%d" % (mod.path, call.lineno)
    names = []
    for a in call.args:
        v = literal(mod, a)
        if not isinstance(v, str):
            raise Error("%s: an option string that is not a literal" % where)
        names.append(v)
    if any(isinstance(k.value, ast.Dict) for k in call.keywords if k.arg is None):
        raise Error("%s: add_argument(**dict) is not understood" % where)
    kw = {k.arg: literal(mod, k.value) for k in call.keywords if k.arg}
    choices = next((k.value for k in call.keywords if k.arg == "choices"), None)
    if kw.get("choices") is UNKNOWN:
        kw["choices"] = enum_choices(mod, choices)
    kw["action"] = action_name(mod, next((k.value for k in call.keywords
                                          if k.arg == "action"), None))
    if not names or not all(n.startswith("-") for n in names):
        return []  # a positional argument: not a flag
    return rows_for(names, kw, where)


# ---- ArgumentGroupFactory ------------------------------------------------

def annotation_kind(mod, ann):
    """('bool'|'list'|'literal'|'enum'|'other'|'union', choices) for a field's
    type annotation, as ArgumentGroupFactory._extract_type reads it."""
    # Optional[X], X | None, Union[X, None]
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        if isinstance(ann.right, ast.Constant) and ann.right.value is None:
            return annotation_kind(mod, ann.left)
        return "union", None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return annotation_kind(mod, ast.parse(ann.value, mode="eval").body)
    if isinstance(ann, ast.Subscript):
        head = ann.value.attr if isinstance(ann.value, ast.Attribute) else \
            getattr(ann.value, "id", "")
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head == "Optional":
            return annotation_kind(mod, args[0])
        if head == "Union":
            if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is None:
                return annotation_kind(mod, args[0])
            return "union", None
        if head in ("list", "List"):
            if len(args) != 1:
                return "union", None
            inner, choices = annotation_kind(mod, args[0])
            return ("list" if inner != "union" else "union"), choices
        if head == "Literal":
            vals = [literal(mod, a) for a in args]
            return "literal", ("?" if UNKNOWN in vals else ",".join(str(v) for v in vals))
        return "union", None  # Callable[...], tuple[...], dict[...]: not inferable
    if isinstance(ann, ast.Name) and ann.id == "bool":
        return "bool", None
    if isinstance(ann, ast.Name) and ann.id in ("Callable", "Any"):
        return "union", None
    name = ann.attr if isinstance(ann, ast.Attribute) else getattr(ann, "id", None)
    if name:
        found = resolve_class(mod, name)
        if found and is_enum(*found):
            return "enum", ",".join(enum_members(found[1]))
    return "other", None


def is_enum(mod, cls, depth=0):
    for b in cls.bases:
        name = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
        if name in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"):
            return True
        found = resolve_class(mod, name) if name else None
        if found and depth < 10 and is_enum(found[0], found[1], depth + 1):
            return True
    return False


def enum_members(cls):
    out = []
    for n in cls.body:
        if isinstance(n, ast.Assign):
            out += [t.id for t in n.targets if isinstance(t, ast.Name)]
    return out


def dataclass_fields(mod, cls, depth=0):
    """{name: (module, AnnAssign)} of a dataclass and its bases, in
    dataclasses.fields() order (bases first; a redefinition keeps its place)."""
    fields = {}
    if cls.bases and depth < 20:
        b = cls.bases[0]
        name = b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
        found = resolve_class(mod, name) if name else None
        if found:
            fields.update(dataclass_fields(found[0], found[1], depth + 1))
    for n in cls.body:
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            ann = n.annotation
            head = ann.value if isinstance(ann, ast.Subscript) else ann
            hname = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")
            if hname in ("ClassVar", "InitVar"):
                continue
            fields[n.target.id] = (mod, n)
    return fields


def field_call(node):
    v = node.value
    if isinstance(v, ast.Call) and callee(v).split(".")[-1] == "field":
        return v
    return None


def factory_rows(mod, cls_name, exclude, scope, where):
    found = resolve_class(mod, cls_name, scope)
    if not found:
        raise Error("%s: cannot find the dataclass %s" % (where, cls_name))
    rows = []
    for fname, (fmod, node) in dataclass_fields(*found).items():
        fc = field_call(node)
        fkw = {k.arg: k.value for k in fc.keywords} if fc else {}
        if fname in exclude:
            continue
        if "init" in fkw and literal(fmod, fkw["init"]) is False:
            continue
        default = fkw.get("default", None) if fc else node.value
        default = literal(fmod, default) if default is not None else (
            UNKNOWN if fc else None)
        meta = {}
        if "metadata" in fkw:
            md = literal(fmod, fkw["metadata"])
            if md is UNKNOWN:
                md = meta_by_hand(fmod, fkw["metadata"])
            meta = dict(md.get("argparse_meta", {}))
        fwhere = "%s:%d" % (fmod.path, node.lineno)
        kind, choices = annotation_kind(fmod, node.annotation)
        kw = {"dest": fname}
        names = ["--" + fname.replace("_", "-")]
        if kind == "union":
            if not meta:
                raise Error("%s: %s: the type of %s cannot be inferred and it has no "
                            "argparse_meta (Megatron-LM would fail too)"
                            % (where, fwhere, fname))
        elif kind == "bool":
            if default is False:
                kw["action"] = "store_true"
            else:
                kw["action"] = "store_false"
                names = ["--no-" + fname.replace("_", "-"),
                         "--disable-" + fname.replace("_", "-")]
        else:
            if kind == "list":
                kw["nargs"] = "+"
            if choices is not None:
                kw["choices"] = choices.split(",") if choices != "?" else UNKNOWN
        if "arg_names" in meta:
            names = list(meta.pop("arg_names"))
        for k, v in meta.items():
            kw[k] = v
        if not isinstance(kw.get("action", "store"), str):
            kw["action"] = "?"
        rows += rows_for(names, kw, fwhere)
    return rows


def meta_by_hand(mod, node):
    """metadata={"argparse_meta": {...}} whose values are not all literals
    (type=some_function): keep the literal ones; action by its name."""
    if not isinstance(node, ast.Dict):
        return {}
    for k, v in zip(node.keys, node.values):
        if literal(mod, k) == "argparse_meta" and isinstance(v, ast.Dict):
            out = {}
            for kk, vv in zip(v.keys, v.values):
                key = literal(mod, kk)
                out[key] = action_name(mod, vv) if key == "action" else literal(mod, vv)
            return {"argparse_meta": out}
    return {}


# ---- the walk from add_megatron_arguments ----------------------------------

def local_lists(func):
    """Local names bound to list literals in a function (exclude=...)."""
    out = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            try:
                out[n.targets[0].id] = list(ast.literal_eval(n.value))
            except (ValueError, SyntaxError, TypeError):
                pass
    return out


def factory_call(mod, func, call, factories, lists):
    """(class name, exclude) if call is ArgumentGroupFactory(...)."""
    if callee(call).split(".")[-1] != "ArgumentGroupFactory":
        return None
    where = "%s:%d" % (mod.path, call.lineno)
    if not call.args or not isinstance(call.args[0], ast.Name):
        raise Error("%s: ArgumentGroupFactory of something not a class name" % where)
    ex = [k.value for k in call.keywords if k.arg == "exclude"]
    if len(call.args) > 1:
        ex.append(call.args[1])
    exclude = []
    if ex:
        e = ex[0]
        if isinstance(e, ast.Name) and e.id in lists:
            exclude = lists[e.id]
        else:
            v = literal(mod, e)
            if v is UNKNOWN:
                raise Error("%s: exclude is not a literal list" % where)
            exclude = list(v or [])
    return call.args[0].id, set(exclude)


def walk(mod, func, seen, rows):
    if func.name in seen:
        return
    seen.add(func.name)
    lists = local_lists(func)
    factories = {}
    for n in ast.walk(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call):
            fc = factory_call(mod, func, n.value, factories, lists)
            if fc:
                factories[n.targets[0].id] = fc
    for n in ast.walk(func):
        if not isinstance(n, ast.Call):
            continue
        name = callee(n)
        last = name.split(".")[-1]
        where = "%s:%d" % (mod.path, n.lineno)
        if last == "add_argument":
            rows += add_argument_rows(mod, n)
        elif last == "build_group":
            obj = n.func.value if isinstance(n.func, ast.Attribute) else None
            if isinstance(obj, ast.Name) and obj.id in factories:
                fc = factories[obj.id]
            elif isinstance(obj, ast.Call):
                fc = factory_call(mod, func, obj, factories, lists)
            else:
                fc = None
            if fc is None:
                raise Error("%s: build_group() of an unknown factory" % where)
            rows += factory_rows(mod, fc[0], fc[1], func, where)
        elif name in mod.defs and isinstance(mod.defs[name], ast.FunctionDef):
            walk(mod, mod.defs[name], seen, rows)


def extra_providers(tree):
    """[(module, FunctionDef)] of the functions SCRIPT passes as
    extra_args_provider= (a name, or `f if cond else None`), each found
    through the script's `from X import f` (a try block's too); [] when the
    tree has no SCRIPT. A provider that cannot be found is an error."""
    text = tree.read(SCRIPT)
    if text is None:
        return []
    script = ast.parse(text, filename=SCRIPT)
    names = []
    for n in ast.walk(script):
        if isinstance(n, ast.Call):
            for k in n.keywords:
                if k.arg == "extra_args_provider":
                    names += [x.id for x in ast.walk(k.value) if isinstance(x, ast.Name)
                              and not (isinstance(k.value, ast.IfExp) and x in
                                       ast.walk(k.value.test))]
    out = []
    for name in dict.fromkeys(names):
        where = None
        for n in ast.walk(script):
            if isinstance(n, ast.ImportFrom) and n.module and not n.level and \
                    any((a.asname or a.name) == name for a in n.names):
                real = next(a.name for a in n.names if (a.asname or a.name) == name)
                mod = load_module(tree, n.module)
                if mod is not None and real in mod.defs:
                    where = (mod, mod.defs[real])
        if where is None:
            raise Error("%s: extra_args_provider %s is not a function imported from the tree"
                        % (SCRIPT, name))
        out.append(where)
    return out


def collect(tree, providers=None):
    mod = load_module(tree, ARGS_FILE[:-3].replace("/", "."))
    if mod is None:
        raise Error("%s is not in the source" % ARGS_FILE)
    if ENTRY not in mod.defs:
        raise Error("%s has no %s()" % (ARGS_FILE, ENTRY))
    rows = []
    walk(mod, mod.defs[ENTRY], set(), rows)
    for pmod, func in providers or []:
        walk(pmod, func, set(), rows)
    by_name = {}
    for r in rows:
        old = by_name.get(r[0])
        if old is not None and old != r:
            raise Error("%s is defined twice, differently: %s / %s"
                        % (r[0], "|".join(old[1:]), "|".join(r[1:])))
        by_name[r[0]] = r
    return [by_name[k] for k in sorted(by_name)]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--git-dir", help="a Megatron-LM git repository (its .git)")
    src.add_argument("--source-dir", help="a Megatron-LM source tree")
    ap.add_argument("--commit", help="the commit to read (required with --git-dir)")
    ap.add_argument("-o", "--output", help="write here instead of standard output")
    a = ap.parse_args(argv)
    if a.git_dir and not a.commit:
        ap.error("--git-dir needs --commit")
    tree = Tree(git_dir=a.git_dir, commit=a.commit, source_dir=a.source_dir)
    try:
        commit = tree.full_commit() if a.git_dir else a.commit
        providers = extra_providers(tree)
        rows = collect(tree, providers)
    except (Error, SyntaxError, subprocess.CalledProcessError) as e:
        print("megatron_args: %s" % e, file=sys.stderr)
        return 1
    out = []
    out.append("# Megatron-LM command-line arguments (GENERATED: do not edit).")
    out.append("# Repository: %s" % REPO)
    out.append("# Commit: %s%s" % (commit or "(none given)",
                                    " (%s)" % tree.commit_date() if a.git_dir else ""))
    out.append("# File: %s, every argument reachable from %s()" % (ARGS_FILE, ENTRY))
    out.append("# Regenerate (from a clone of the repository, no network):")
    if a.git_dir:
        out.append("#   python3 tools/megatron_args.py --git-dir MEGATRON-LM/.git "
                   "--commit %s -o FILE" % (commit[:12] if commit else "COMMIT"))
    else:
        out.append("#   python3 tools/megatron_args.py --source-dir TREE -o FILE")
    for pmod, func in providers:
        out.append("# Also: %s, every argument reachable from %s() (%s's extra_args_provider)"
                   % (pmod.path, func.name, SCRIPT))
    out.append("# nargs: 0 = a switch (takes no value), 1 = one value, else argparse's.")
    out.append("# name\tdest\taction\tnargs\tchoices")
    out += ["\t".join(r) for r in rows]
    text = "\n".join(out) + "\n"
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
