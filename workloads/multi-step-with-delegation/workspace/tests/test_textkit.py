import unittest

from textkit.slug import slugify
from textkit.words import word_count


class SlugTest(unittest.TestCase):
    def test_examples(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")


class WordCountTest(unittest.TestCase):
    def test_examples(self):
        self.assertEqual(word_count("a b a"), {"a": 2, "b": 1})


if __name__ == "__main__":
    unittest.main()
