"""Hidden check for fix-a-bug-small: page_count rounds up, and everything built on it agrees.

Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import math
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

from pager import iter_pages, page_bounds, page_count  # noqa: E402


class PageCountRoundsUpTest(unittest.TestCase):
    def test_matches_ceiling_division(self):
        for total in range(0, 60):
            for per_page in range(1, 13):
                self.assertEqual(page_count(total, per_page), math.ceil(total / per_page), (total, per_page))

    def test_exact_multiple_has_no_extra_page(self):
        self.assertEqual(page_count(10, 5), 2)

    def test_zero_items_means_zero_pages(self):
        self.assertEqual(page_count(0, 5), 0)

    def test_bad_arguments_still_rejected(self):
        with self.assertRaises(ValueError):
            page_count(3, 0)
        with self.assertRaises(ValueError):
            page_count(-1, 5)


class PagesAgreeTest(unittest.TestCase):
    def test_iter_pages_covers_every_item_once_without_empty_pages(self):
        for n in range(0, 25):
            for per_page in range(1, 8):
                pages = list(iter_pages(list(range(n)), per_page))
                self.assertEqual([x for page in pages for x in page], list(range(n)))
                self.assertEqual(len(pages), page_count(n, per_page))
                self.assertTrue(all(0 < len(page) <= per_page for page in pages), (n, per_page, pages))

    def test_last_partial_page_bounds(self):
        self.assertEqual(page_bounds(3, 3, 7), (6, 7))

    def test_page_after_an_exact_multiple_is_rejected(self):
        with self.assertRaises(IndexError):
            page_bounds(3, 5, 10)


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        # The agent may add tests; they must pass too (a wrong regression test is a failure).
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
