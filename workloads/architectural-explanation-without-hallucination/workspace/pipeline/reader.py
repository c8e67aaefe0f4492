import csv


class CsvReader:
    """Yields one dict per row of a CSV file; the header row names the keys."""

    def __init__(self, path):
        self.path = path

    def rows(self):
        with open(self.path, newline="", encoding="utf-8") as f:
            yield from csv.DictReader(f)
