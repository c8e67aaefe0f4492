import { describe, expect, it } from 'vitest';
import { IntermediateCache, type StepResult } from './intermediate-cache.ts';
import { decompose, type WorkflowStep } from './workflow-decomposer.ts';

/** A cache on a clock the test moves (microseconds). */
function clocked(ttlSeconds = 10) {
  const clock = { now: 0 };
  return { clock, cache: new IntermediateCache(ttlSeconds, () => clock.now) };
}

describe('IntermediateCache (§9): get and set', () => {
  it('a held key is a hit with its result, input and cost', () => {
    const { cache } = clocked();
    cache.set('d1:summarize:overview', 'S', 'd1', 'the document', '0.002');
    expect(cache.get('d1:summarize:overview')).toBe('S');
    expect(cache.lookup('d1:summarize:overview')).toEqual({ result: 'S', input: 'the document', cost_usd: '0.002' });
    expect(cache.stats()).toEqual({ entries: 1, hits: 2, misses: 0 });
  });

  it('an unknown key is a miss and is counted', () => {
    const { cache } = clocked();
    cache.set('d1:summarize:overview', 'S', 'd1');
    expect(cache.get('d2:summarize:overview')).toBeNull();
    expect(cache.stats()).toEqual({ entries: 1, hits: 0, misses: 1 });
  });

  it('setting a key again replaces its result', () => {
    const { cache } = clocked();
    cache.set('k', 'old', null);
    cache.set('k', 'new', null);
    expect(cache.get('k')).toBe('new');
    expect(cache.stats().entries).toBe(1);
  });

  it('a TTL must be positive', () => {
    expect(() => new IntermediateCache(0)).toThrow(RangeError);
    expect(() => new IntermediateCache(-5)).toThrow(RangeError);
  });
});

describe('IntermediateCache (§9): TTL expiry', () => {
  it('an entry is served until its TTL has passed, then is a miss and is dropped', () => {
    const { clock, cache } = clocked(10);
    cache.set('k', 'S', 'd1');
    clock.now = 10e6 - 1;
    expect(cache.get('k')).toBe('S');
    clock.now = 10e6; // expiry is exclusive: at the TTL it is gone
    expect(cache.get('k')).toBeNull();
    expect(cache.stats()).toEqual({ entries: 0, hits: 1, misses: 1 });
  });

  it('re-setting an entry restarts its TTL', () => {
    const { clock, cache } = clocked(10);
    cache.set('k', 'S', 'd1');
    clock.now = 8e6;
    cache.set('k', 'S2', 'd1');
    clock.now = 15e6;
    expect(cache.get('k')).toBe('S2');
  });
});

describe('IntermediateCache (§9): invalidation', () => {
  it('by document drops every version of it and every comparison reading it, and nothing else', () => {
    const { cache } = clocked();
    cache.set('d1:summarize:x', 'S', 'd1');
    cache.set('d1@v2:summarize:x', 'S2', 'd1@v2');
    cache.set('d1|d2:compare:x', 'C', 'd1|d2');
    cache.set('d2:summarize:x', 'T', 'd2');
    cache.set('d10:summarize:x', 'U', 'd10'); // a longer id starting with "d1" is another document
    cache.set('query:answer:x', 'A', null);
    expect(cache.invalidateByDocument('d1')).toBe(3);
    expect(cache.get('d1|d2:compare:x')).toBeNull();
    expect(['d2:summarize:x', 'd10:summarize:x', 'query:answer:x'].map((k) => cache.get(k))).toEqual(['T', 'U', 'A']);
  });

  it('by document version drops only that version', () => {
    const { cache } = clocked();
    cache.set('d1@v1:summarize:x', 'S1', 'd1@v1');
    cache.set('d1@v2:summarize:x', 'S2', 'd1@v2');
    expect(cache.invalidateByDocument('d1@v1')).toBe(1);
    expect(cache.get('d1@v2:summarize:x')).toBe('S2');
  });

  it('by key drops one entry and says whether it was there', () => {
    const { cache } = clocked();
    cache.set('k', 'S', 'd1');
    expect(cache.invalidate('k')).toBe(true);
    expect(cache.invalidate('k')).toBe(false);
    expect(cache.get('k')).toBeNull();
  });
});

describe('IntermediateCache (§9): executeWorkflow', () => {
  it('a first run computes and keeps every step; the executor sees the steps done so far', async () => {
    const { cache } = clocked();
    const seen: number[] = [];
    const exec = (s: WorkflowStep, done: readonly unknown[]): Promise<StepResult> => (seen.push(done.length), Promise.resolve(`${s.step_type}!`));
    const r = await cache.executeWorkflow(decompose('Who signed? What is the fee?', 'c1'), exec);
    expect(r.hits).toBe(0);
    expect(seen).toEqual([0, 1, 2]);
    expect(r.steps.map((s) => [s.result, s.served, s.cost_usd])).toEqual([
      ['summarize!', false, '0'],
      ['answer!', false, '0'],
      ['answer!', false, '0'],
    ]);
    expect(cache.stats()).toEqual({ entries: 3, hits: 0, misses: 3 });
  });

  it('mixed hits and misses: held steps are served with what they cost, only the others are computed', async () => {
    const { cache } = clocked();
    const computed: string[] = [];
    const exec = (s: WorkflowStep): Promise<StepResult> => (computed.push(s.cache_key), Promise.resolve({ result: `R(${s.input_text})`, cost_usd: '0.001' }));
    await cache.executeWorkflow(decompose('What is the fee?', 'c1'), exec);
    computed.length = 0;
    const r = await cache.executeWorkflow(decompose('Who signed? What is the fee?', 'c1'), exec);
    expect(r.hits).toBe(2); // the summary and the fee answer
    expect(computed).toEqual(['c1:answer:signed-who']);
    expect(r.steps.map((s) => [s.cache_key, s.served, s.cost_usd])).toEqual([
      ['c1:summarize:overview', true, '0.001'],
      ['c1:answer:signed-who', false, '0.001'],
      ['c1:answer:fee', true, '0.001'],
    ]);
    expect(r.steps[2]!.result).toBe('R(What is the fee?)');
  });

  it('reuses a document summary across different comparisons (a Tier 3 hit)', async () => {
    const cache = new IntermediateCache();
    let executed = 0;
    const exec = (s: { step_type: string }) => Promise.resolve(`${s.step_type}:${++executed}`);
    await cache.executeWorkflow(decompose('Compare the pricing of these offers', 'A|B'), exec);
    const second = await cache.executeWorkflow(decompose('Compare the support terms of these offers', 'A|B'), exec);
    expect(second.hits).toBe(2); // both overviews reused, only the comparison computed
    expect(executed).toBe(4);
    expect(cache.stats()).toMatchObject({ hits: 2 });
  });

  it('a held step that accept refuses is computed, replaces the entry and counts as a miss', async () => {
    const { cache } = clocked();
    const exec = (s: WorkflowStep) => Promise.resolve(`answer to ${s.input_text}`);
    await cache.executeWorkflow(decompose('Is Pro cheaper than Basic?'), exec);
    const before = cache.stats();
    const r = await cache.executeWorkflow(decompose('Is Basic cheaper than Pro?'), exec, (s, stored) => stored === s.input_text);
    expect(r.hits).toBe(0);
    expect(r.steps[0]).toMatchObject({ served: false, result: 'answer to Is Basic cheaper than Pro?' });
    expect(cache.stats()).toEqual({ entries: before.entries, hits: before.hits, misses: before.misses + 1 });
    expect(cache.lookup(r.steps[0]!.cache_key)!.input).toBe('Is Basic cheaper than Pro?');
  });

  it('an expired step is recomputed', async () => {
    const { clock, cache } = clocked(10);
    let n = 0;
    const exec = () => Promise.resolve(`v${++n}`);
    await cache.executeWorkflow(decompose('What is the fee?'), exec);
    clock.now = 11e6;
    const r = await cache.executeWorkflow(decompose('What is the fee?'), exec);
    expect(r.steps[0]).toMatchObject({ served: false, result: 'v2' });
  });
});
