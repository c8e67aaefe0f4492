import { readFileSync, writeFileSync } from 'node:fs';
import { isMap, isScalar, parseDocument, stringify, type Pair, type YAMLMap } from 'yaml';
import type { Signal } from '../../schemas/types/workload.ts';
import { SetupError } from '../errors.ts';
import type { SignalResult } from './signal-verdict.ts';

/** Gaps are stored to 3 decimals: the resolution `bench signal` prints. */
const round3 = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

/** The `signal` block `bench signal --write` records for a result. */
export function signalBlock(r: SignalResult): Signal {
  return {
    score_gap: round3(r.score_gap),
    solved_gap: round3(r.solved_gap),
    reps: r.reps,
    provider: r.provider,
    simulated: r.simulated,
    cheap_model: r.cheap.model,
    strong_model: r.strong.model,
    seed: r.seed,
    measured_at: r.measured_at,
  };
}

const keyOf = (p: Pair) => (isScalar(p.key) ? p.key.value : p.key);

/** A text replacement: [from, to) becomes `text`. */
interface Edit {
  from: number;
  to: number;
  text: string;
}

/** Index just past the end of the line holding `at`. */
const endOfLine = (text: string, at: number) => {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
};

/**
 * Sets `signal_strength` and the `signal` block in a workload.yaml's text. The yaml Document API
 * locates the nodes; only their text is replaced, so every other byte (comments, folded prompts,
 * key order) stays as written. A missing `signal_strength` goes after `suite_version`, a missing
 * `signal` block right after `signal_strength`.
 */
export function withSignal(text: string, file: string, r: SignalResult): string {
  const source = text.endsWith('\n') ? text : `${text}\n`;
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw new SetupError(`${file}: malformed YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it before --write`);
  if (!isMap(doc.contents)) throw new SetupError(`${file}: the top level is not a mapping; a workload.yaml is one`);
  const root = doc.contents as YAMLMap;
  const pairOf = (key: string) => root.items.find((p) => keyOf(p) === key);
  const blockText = stringify({ signal: signalBlock(r) }, { indent: 2, lineWidth: 0 });
  const edits: Edit[] = [];

  const strength = pairOf('signal_strength');
  let afterStrength: number;
  if (strength && isScalar(strength.value) && strength.value.range) {
    const [from, to] = strength.value.range;
    edits.push({ from, to, text: r.verdict });
    afterStrength = endOfLine(source, to);
  } else if (strength) {
    throw new SetupError(`${file}: signal_strength is not a plain value; set it to high or marginal by hand, then rerun --write`);
  } else {
    const suite = pairOf('suite_version');
    const suiteEnd = suite && isScalar(suite.value) && suite.value.range ? endOfLine(source, suite.value.range[1]) : 0;
    edits.push({
      from: suiteEnd,
      to: suiteEnd,
      text: `signal_strength: ${r.verdict}\n`,
    });
    afterStrength = suiteEnd;
  }

  const signal = pairOf('signal');
  const keyRange = signal && isScalar(signal.key) ? signal.key.range : null;
  const valueRange = signal && (signal.value as { range?: [number, number, number] } | null)?.range;
  if (signal && keyRange && valueRange) {
    // From the start of the key's line to the end of the block's last line.
    const lineStart = source.lastIndexOf('\n', keyRange[0] - 1) + 1;
    edits.push({
      from: lineStart,
      to: endOfLine(source, Math.max(valueRange[1] - 1, keyRange[1])),
      text: blockText,
    });
  } else if (signal) {
    throw new SetupError(`${file}: cannot locate the signal block; delete it and rerun --write`);
  } else {
    edits.push({ from: afterStrength, to: afterStrength, text: blockText });
  }

  let out = source;
  // Back to front, so earlier offsets stay valid; of two inserts at one place, the later-listed goes in first and ends up second.
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.from - a.e.from || b.i - a.i);
  for (const { e } of order) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return out;
}

/** Rewrites `file` (a workload.yaml) with the verdict of `r`. */
export function writeSignal(file: string, r: SignalResult): void {
  writeFileSync(file, withSignal(readFileSync(file, 'utf8'), file, r));
}
