import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
REAL = {"CsvReader", "Normalizer", "SqliteSink", "PipelineRunner"}
FORBIDDEN = ["kafka", "redis", "retryqueue", "celery", "s3"]


def code_classes():
    names = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, "pipeline")):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    names.update(re.findall(r"^class (\w+)", f.read(), flags=re.M))
    return names


class ArchitectureDocTest(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.path.exists(DOC), "docs/ARCHITECTURE.md was not written")
        with open(DOC, encoding="utf-8") as f:
            self.text = f.read()

    def test_names_every_component(self):
        for name in REAL:
            self.assertIn(name, self.text)

    def test_names_no_component_that_does_not_exist(self):
        mentioned = set(re.findall(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b", self.text))
        self.assertEqual(sorted(mentioned - code_classes()), [])

    def test_invents_no_infrastructure(self):
        lower = self.text.lower()
        self.assertEqual([w for w in FORBIDDEN if re.search(r"\b" + w + r"\b", lower)], [])

    def test_describes_the_flow_in_order(self):
        positions = [self.text.find(n) for n in ["CsvReader", "Normalizer", "SqliteSink"]]
        self.assertEqual(positions, sorted(positions))


if __name__ == "__main__":
    unittest.main()
