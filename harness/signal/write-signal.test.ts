import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SetupError } from '../errors.ts';
import type { SignalResult } from './signal-verdict.ts';
import { signalBlock, withSignal } from './write-signal.ts';

const result = (over: Partial<SignalResult> = {}): SignalResult => ({
  workload: 'w',
  cheap: {
    model: 'anthropic:claude-haiku-4-5',
    scores: [0.2, 0.4],
    solved: 0,
    mean: 0.3,
    solved_rate: 0,
  },
  strong: {
    model: 'anthropic:claude-sonnet-4-6',
    scores: [1, 1],
    solved: 2,
    mean: 1,
    solved_rate: 1,
  },
  reps: 2,
  score_gap: 0.70004,
  solved_gap: 1,
  verdict: 'high',
  provider: 'sim',
  simulated: true,
  seed: 0,
  measured_at: '2026-11-24T12:00:00.000000Z',
  ...over,
});

const SOURCE = `# A comment at the top stays.
name: w
description: A workload.
suite_version: 1
signal_strength: marginal # was never measured
turns:
  - prompt: >-
      A folded prompt that is long enough that a re-serialiser with a line width would fold it
      differently from how it was written.
    expect: { min_tool_calls: 1 }   # flow style stays
evaluate:
  rubric: heuristic
`;

describe('withSignal: --write edits only the verdict and the signal block', () => {
  it('sets the verdict, adds the block after it, and keeps every other byte', () => {
    const out = withSignal(SOURCE, 'w.yaml', result());
    const data = parse(out) as Record<string, unknown>;
    expect(data['signal_strength']).toBe('high');
    expect(data['signal']).toEqual({
      ...signalBlock(result()),
      score_gap: 0.7,
    });
    expect(out.replace(/^signal:\n(?: {2}.*\n)+/m, '').replace('signal_strength: high', 'signal_strength: marginal')).toBe(SOURCE);
    expect(Object.keys(data)).toEqual(['name', 'description', 'suite_version', 'signal_strength', 'signal', 'turns', 'evaluate']);
  });

  it('replaces an existing block in place, so writing twice equals writing once', () => {
    const once = withSignal(SOURCE, 'w.yaml', result());
    const other = withSignal(
      once,
      'w.yaml',
      result({
        verdict: 'marginal',
        score_gap: 0.1,
        provider: 'anthropic',
        simulated: false,
      }),
    );
    expect((parse(other) as { signal: { provider: string } }).signal.provider).toBe('anthropic');
    expect(withSignal(other, 'w.yaml', result())).toBe(once);
  });

  it('adds signal_strength after suite_version when the file has none', () => {
    const out = withSignal(SOURCE.replace('signal_strength: marginal # was never measured\n', ''), 'w.yaml', result());
    expect(Object.keys(parse(out) as object).slice(2, 5)).toEqual(['suite_version', 'signal_strength', 'signal']);
  });

  it('stores null gaps as null', () => {
    const out = withSignal(SOURCE, 'w.yaml', result({ solved_gap: null, score_gap: null, verdict: 'marginal' }));
    expect((parse(out) as { signal: { solved_gap: unknown; score_gap: unknown } }).signal).toMatchObject({ solved_gap: null, score_gap: null });
  });

  it('refuses malformed YAML, naming the file', () => {
    expect(() => withSignal('name: [unclosed\n', 'bad.yaml', result())).toThrow(SetupError);
    expect(() => withSignal('name: [unclosed\n', 'bad.yaml', result())).toThrow(/bad\.yaml/);
    expect(() => withSignal('- a list\n', 'list.yaml', result())).toThrow(/not a mapping/);
  });
});
