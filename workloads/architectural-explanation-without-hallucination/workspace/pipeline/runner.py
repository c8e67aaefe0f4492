from pipeline.reader import CsvReader
from pipeline.store import SqliteSink
from pipeline.transform import Normalizer


class PipelineRunner:
    """Wires the stages: CsvReader -> Normalizer -> SqliteSink. Runs synchronously, one file at a time."""

    def __init__(self, source, target):
        self.reader = CsvReader(source)
        self.normalizer = Normalizer()
        self.sink = SqliteSink(target)

    def run(self):
        return self.sink.write(self.normalizer.apply(self.reader.rows()))
