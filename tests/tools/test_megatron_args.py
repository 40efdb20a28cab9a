#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/megatron_args.py on a synthetic Megatron-LM tree (tests/data/megatron-args):
argument groups, helpers called from add_megatron_arguments, store_true/store_false,
BooleanOptionalAction's --no-X, aliases, dest, nargs (?, *, +, N), choices (a
literal, a module constant, a Literal[...] type, an enum), ArgumentGroupFactory
dataclasses (base-class fields, exclude, init=False, argparse_meta), and the
errors for what it cannot read; then the committed lists' shape.

    python3 tests/tools/test_megatron_args.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "megatron_args.py")
FIXTURE = os.path.join(ROOT, "tests", "data", "megatron-args")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)


class Fixture(unittest.TestCase):
    def test_exact_output(self):
        r = run("--source-dir", FIXTURE, "--commit", COMMIT)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(FIXTURE, "expected.tsv"), encoding="utf-8") as f:
            self.assertEqual(r.stdout, f.read())

    def test_rows(self):
        r = run("--source-dir", FIXTURE)
        rows = {l.split("\t")[0]: l.split("\t")[1:] for l in r.stdout.splitlines()
                if not l.startswith("#")}
        self.assertEqual(rows["--swiglu"], ["swiglu", "store_true", "0", "-"])
        self.assertEqual(rows["--disable-bias-linear"], ["add_bias_linear", "store_false", "0", "-"])
        self.assertEqual(rows["--no-ckpt-fully-parallel-load"],
                         ["ckpt_fully_parallel_load", "BooleanOptionalAction", "0", "-"])
        self.assertEqual(rows["--recompute-modules"][2], "*")
        self.assertEqual(rows["--cp-comm-type"][2], "+")
        self.assertEqual(rows["--ckpt-step"][2], "?")
        self.assertEqual(rows["--rampup-batch-size"][2], "3")
        self.assertEqual(rows["--exp-avg-dtype"], ["exp_avg_dtype", "store", "1", "fp32,bf16"])
        self.assertEqual(rows["--backend"][3], "flash,fused,auto")
        self.assertEqual(rows["--schedule"][3], "cosine,linear")
        # a bool field whose default is not False: store_false, two spellings
        self.assertEqual(rows["--no-bias-fusion"], ["bias_fusion", "store_false", "0", "-"])
        self.assertEqual(rows["--disable-bias-fusion"], ["bias_fusion", "store_false", "0", "-"])
        self.assertIn("--no-maybe-flag", rows)  # Optional[bool] = None: store_false too
        self.assertEqual(rows["--persistent-save-interval"][0], "save_interval")
        self.assertEqual(rows["--no-ckpt-fully-parallel-save"][0], "ckpt_fully_parallel_save")
        self.assertEqual(rows["--rampup"][2], "3")  # argparse_meta overrides list's '+'
        self.assertEqual(rows["--layer-sizes"][2], "+")
        for absent in ("--excluded-field", "--derived", "--never-registered", "positional",
                       "--bias-fusion", "--fully-parallel-save"):
            self.assertNotIn(absent, rows)
        self.assertIn("--nested-flag", rows)  # a helper called from a reachable function
        self.assertIn("--seed", rows)  # a field of the base class


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tree = os.path.join(self.tmp, "tree")
        shutil.copytree(FIXTURE, self.tree)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def append(self, rel, text):
        with open(os.path.join(self.tree, rel), "a", encoding="utf-8") as f:
            f.write(text)

    def test_computed_option_string(self):
        self.append("megatron/training/arguments.py",
                    "\n\ndef _add_nested(group):\n    group.add_argument('--x-' + 'y')\n")
        r = run("--source-dir", self.tree)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, r"^megatron_args: megatron/training/arguments.py:\d+: "
                                   r"an option string that is not a literal\n$")
        self.assertEqual(r.stdout, "")

    def test_uninferable_field(self):
        self.append("megatron/training/config.py",
                    "\n\n@dataclass\nclass LogConfig:\n    either: int | str = 0\n")
        r = run("--source-dir", self.tree)
        self.assertEqual(r.returncode, 1)
        self.assertIn("the type of either cannot be inferred and it has no argparse_meta",
                      r.stderr)

    def test_conflicting_definitions(self):
        self.append("megatron/training/arguments.py",
                    "\n\ndef _add_nested(group):\n    group.add_argument('--swiglu', type=int)\n")
        r = run("--source-dir", self.tree)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--swiglu is defined twice, differently", r.stderr)

    def test_extra_args_provider(self):
        """pretrain_gpt.py's extra_args_provider (a conditional, imported in a
        try block) adds its arguments and a header line."""
        os.makedirs(os.path.join(self.tree, "megatron/post_training"))
        self.append("megatron/post_training/arguments.py",
                    "def add_extra(parser):\n    g = parser.add_argument_group('x')\n"
                    "    g.add_argument('--enable-extra', action='store_true')\n"
                    "    g.add_argument('--extra-mode', choices=['a', 'b'], default='a')\n")
        self.append("pretrain_gpt.py",
                    "try:\n    from megatron.post_training.arguments import add_extra\n"
                    "    has_extra = True\nexcept ImportError:\n    has_extra = False\n"
                    "parse(extra_args_provider=add_extra if has_extra else None)\n")
        r = run("--source-dir", self.tree, "--commit", COMMIT)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[6], "# Also: megatron/post_training/arguments.py, every argument "
                                   "reachable from add_extra() (pretrain_gpt.py's "
                                   "extra_args_provider)")
        self.assertIn("--enable-extra\tenable_extra\tstore_true\t0\t-", lines)
        self.assertIn("--extra-mode\textra_mode\tstore\t1\ta,b", lines)
        with open(os.path.join(FIXTURE, "expected.tsv"), encoding="utf-8") as f:
            expected = f.read().splitlines()
        rest = [l for l in lines if "extra" not in l]
        self.assertEqual(rest, expected)

    def test_missing_extra_args_provider(self):
        self.append("pretrain_gpt.py", "parse(extra_args_provider=nowhere)\n")
        r = run("--source-dir", self.tree)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "megatron_args: pretrain_gpt.py: extra_args_provider nowhere "
                                   "is not a function imported from the tree\n")

    def test_no_entry_point(self):
        os.remove(os.path.join(self.tree, "megatron/training/arguments.py"))
        r = run("--source-dir", self.tree)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr,
                         "megatron_args: megatron/training/arguments.py is not in the source\n")

    @unittest.skipIf(shutil.which("git") is None, "no git")
    def test_git_dir(self):
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t",
                   GIT_AUTHOR_DATE="2026-01-02T03:04:05Z",
                   GIT_COMMITTER_DATE="2026-01-02T03:04:05Z")
        git = ["git", "-C", self.tree, "-c", "init.defaultBranch=main"]
        for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
            subprocess.run(git + cmd, check=True, env=env, capture_output=True)
        head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                              text=True).stdout.strip()
        out = os.path.join(self.tmp, "out.tsv")
        r = run("--git-dir", os.path.join(self.tree, ".git"), "--commit", "HEAD", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(FIXTURE, "expected.tsv"), encoding="utf-8") as f:
            expected = f.read()
        self.assertIn("# Commit: %s (2026-01-02)\n" % head, text)
        self.assertIn("#   python3 tools/megatron_args.py --git-dir MEGATRON-LM/.git "
                      "--commit %s -o FILE\n" % head[:12], text)
        body = [l for l in text.splitlines() if not l.startswith("#")]
        self.assertEqual(body, [l for l in expected.splitlines() if not l.startswith("#")])


class CommittedLists(unittest.TestCase):
    """data/engines/megatron-args-*.tsv: the header and the shape the build reads."""

    def test_lists(self):
        d = os.path.join(ROOT, "data", "engines")
        lists = sorted(f for f in os.listdir(d) if f.startswith("megatron-args-"))
        self.assertGreaterEqual(len(lists), 2)
        for name in lists:
            with open(os.path.join(d, name), encoding="utf-8") as f:
                lines = f.read().splitlines()
            short = name[len("megatron-args-"):-len(".tsv")]
            self.assertEqual(lines[1], "# Repository: NVIDIA/Megatron-LM")
            self.assertTrue(lines[2].startswith("# Commit: " + short), lines[2])
            self.assertIn("--commit %s" % short, lines[5])
            names = [l.split("\t")[0] for l in lines if not l.startswith("#")]
            self.assertEqual(names, sorted(set(names)), name)
            for l in lines:
                if not l.startswith("#"):
                    self.assertEqual(len(l.split("\t")), 5, l)


if __name__ == "__main__":
    unittest.main()
