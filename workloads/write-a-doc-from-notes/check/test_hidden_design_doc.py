"""Hidden check for write-a-doc-from-notes: docs/DESIGN.md has the asked-for structure, carries the
final decisions from notes/, and neither repeats superseded values nor invents dates.

Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "DESIGN.md")
SECTIONS = ["overview", "goals", "non-goals", "decisions", "open questions", "timeline"]
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _norm_heading(title):
    title = re.sub(r"[*_`:]", "", title).strip().lower()
    return re.sub(r"^non[\s-]*goals$", "non-goals", title)


def _sections(text):
    """Maps each normalised `## ` heading to its body text, in document order."""
    out = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^##\s+(.+?)\s*#*\s*$", line)
        if m and not line.startswith("###"):
            current = _norm_heading(m.group(1))
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return out


def _notes_text():
    notes = os.path.join(ROOT, "notes")
    parts = []
    for name in sorted(os.listdir(notes)):
        parts.append(name)
        parts.append(_read(os.path.join(notes, name)))
    return "\n".join(parts)


class DesignDocTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(DOC):
            raise unittest.SkipTest("docs/DESIGN.md missing")  # reported by test_doc_exists
        cls.text = _read(DOC)
        cls.lower = cls.text.lower()
        cls.sections = _sections(cls.text)

    def assertMentions(self, pattern, where=None, why=""):
        haystack = self.text if where is None else self.sections.get(where, "")
        self.assertRegex(haystack, re.compile(pattern, re.I), why)

    def assertNotMentions(self, pattern, why=""):
        self.assertNotRegex(self.text, re.compile(pattern, re.I), why)

    # Structure
    def test_has_a_title(self):
        first = next((l for l in self.text.splitlines() if l.strip()), "")
        self.assertTrue(first.startswith("# "), "the first line must be a `# ` title, got %r" % first)

    def test_required_sections_in_order(self):
        found = [h for h in self.sections if h in SECTIONS]
        self.assertEqual(found, SECTIONS, "## sections found: %r" % list(self.sections))

    def test_sections_are_not_empty(self):
        for name in SECTIONS:
            self.assertTrue(self.sections.get(name, "").strip(), "section %r is empty" % name)

    # Final decisions from the notes
    def test_queue_is_postgres(self):
        self.assertMentions(r"postgres", "decisions", "the queue decision belongs under Decisions")

    def test_redis_only_as_rejected(self):
        for line in self.text.splitlines():
            if "redis" in line.lower():
                self.assertRegex(line.lower(), r"reject|not |instead|considered|ruled out|over redis",
                                 "Redis may only appear as the rejected option: %r" % line)

    def test_retry_policy(self):
        self.assertMentions(r"\b(8|eight)\b[^\n]{0,40}attempt|attempts?[^\n]{0,30}\b(8|eight)\b")
        self.assertMentions(r"\b30\s*(s|sec|secs|seconds?)\b|30-second")

    def test_attempt_timeout(self):
        self.assertMentions(r"\b10\s*(s|sec|secs|seconds?)\b|10-second")

    def test_retention(self):
        self.assertMentions(r"\b90[\s-]*days?\b")

    def test_signing(self):
        self.assertMentions(r"hmac[\s-]*sha[\s-]*256")
        self.assertMentions(r"x-courier-signature")

    def test_latency_target(self):
        self.assertMentions(r"\b500\s*ms\b")

    def test_owner(self):
        self.assertMentions(r"\bpriya\b")

    def test_non_goals(self):
        self.assertMentions(r"order", "non-goals", "no ordering guarantee is a non-goal")
        self.assertMentions(r"replay", "non-goals", "no replay UI in v2 is a non-goal")

    def test_open_questions(self):
        self.assertMentions(r"rate[\s-]*limit", "open questions")

    def test_timeline(self):
        self.assertMentions(r"2026-06-15", "timeline")

    # Superseded or invented facts
    def test_no_superseded_values(self):
        self.assertNotMentions(r"\b30[\s-]*days?\b", "retention moved from 30 to 90 days")
        self.assertNotMentions(r"\b(5|five)\s+(delivery\s+|retry\s+)?attempts\b|max(imum)?[\s_-]*attempts\W{0,3}(is\s+|of\s+)?(5|five)\b",
                               "max attempts moved from 5 to 8")
        self.assertNotMentions(r"2026-05-29", "the beta slipped to 2026-06-15")

    def test_every_date_comes_from_the_notes(self):
        notes = _notes_text()
        invented = sorted(set(d for d in ISO_DATE.findall(self.text) if d not in notes))
        self.assertEqual(invented, [], "dates not found in notes/")


class DocExistsTest(unittest.TestCase):
    def test_doc_exists(self):
        self.assertTrue(os.path.isfile(DOC), "docs/DESIGN.md was not written")


if __name__ == "__main__":
    unittest.main()
