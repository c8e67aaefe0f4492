import copy
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)

import config  # noqa: E402


class RootCauseTest(unittest.TestCase):
    def test_nested_file_values_keep_the_other_defaults(self):
        cfg = config.load_config({"db": {"pool": 10}}, {})
        self.assertEqual(cfg["db"], {"name": "app", "pool": 10, "timeout": 30})

    def test_env_over_nested_file_over_defaults(self):
        cfg = config.load_config({"db": {"name": "prod"}}, {"APP_DB__POOL": "9"})
        self.assertEqual(cfg["db"], {"name": "prod", "pool": "9", "timeout": 30})

    def test_defaults_are_never_mutated(self):
        before = copy.deepcopy(config.DEFAULTS)
        config.load_config({"db": {"pool": 1}}, {"APP_DB__NAME": "x", "APP_DB__TIMEOUT": "1"})
        self.assertEqual(config.DEFAULTS, before)

    def test_merge_is_deep_and_pure(self):
        base = {"a": {"b": 1, "c": 2}}
        out = config.merge(base, {"a": {"c": 3}})
        self.assertEqual(out, {"a": {"b": 1, "c": 3}})
        self.assertEqual(base, {"a": {"b": 1, "c": 2}})


class RegressionTestAddedTest(unittest.TestCase):
    """The workspace's own tests must pass on the fix, and tests/test_config.py (where the prompt asks for
    the regression test) must catch the original bug. The shipped reproducer of the reported crash lives
    in another file, so it does not count as the agent's regression test."""

    def run_tests(self, root, *test_ids):
        return subprocess.run([sys.executable, "-B", "run_tests.py", *test_ids], cwd=root, capture_output=True, text=True)

    def test_workspace_tests_pass(self):
        proc = self.run_tests(ROOT)
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_workspace_tests_fail_on_the_original_loader(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy_root = os.path.join(tmp, "ws")
            shutil.copytree(ROOT, copy_root, ignore=shutil.ignore_patterns(".bench-check", "__pycache__"))
            shutil.copy(os.path.join(HERE, "original_config.py"), os.path.join(copy_root, "config.py"))
            proc = self.run_tests(copy_root, "tests.test_config")
            self.assertNotEqual(proc.returncode, 0, "no test in tests/test_config.py catches the shallow merge")


if __name__ == "__main__":
    unittest.main()
