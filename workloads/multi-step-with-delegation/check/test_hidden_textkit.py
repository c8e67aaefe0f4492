import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from textkit.slug import slugify  # noqa: E402
from textkit.words import word_count  # noqa: E402


class HiddenSlugTest(unittest.TestCase):
    def test_spec_examples(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("  A -- B  "), "a-b")

    def test_edges(self):
        self.assertEqual(slugify(""), "")
        self.assertEqual(slugify("!!!"), "")
        self.assertEqual(slugify("Version 2.0 Released"), "version-2-0-released")


class HiddenWordCountTest(unittest.TestCase):
    def test_spec_example(self):
        self.assertEqual(word_count("It's it, IT"), {"it's": 1, "it": 2})

    def test_edges(self):
        self.assertEqual(word_count(""), {})
        self.assertEqual(word_count("A-b a"), {"a": 2, "b": 1})


if __name__ == "__main__":
    unittest.main()
