import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICY_NAMES, type ChainEntry, type RouteDecidedPayload } from '../../runtime/routing/index.ts';
import { clusterTightness, passAtK, passHatK, performanceGapRecovered, savingsVsMeasuredPct, slot4Metrics, strongCallShare } from './index.ts';

function decision(pattern: { verdict: ChainEntry['verdict']; model?: string }, fallback = 'haiku'): RouteDecidedPayload {
  const chain: ChainEntry[] = POLICY_NAMES.map((policy) => ({
    policy,
    verdict: 'not_applicable',
    candidate_model: null,
    reason: '',
    rule_name: null,
    confidence: null,
    pattern_alternatives: null,
    validation_failure: null,
  }));
  const p = chain[3]!;
  p.verdict = pattern.verdict;
  p.candidate_model = pattern.model ?? null;
  const g = chain[6]!;
  g.verdict = pattern.verdict === 'chose' ? 'deferred' : 'chose';
  g.candidate_model = fallback;
  const winner = pattern.verdict === 'chose' ? 3 : 6;
  return { chosen_model: chain[winner]!.candidate_model!, winner_index: winner, elapsed_ms: 0.1, chain };
}

describe('slot-4 metrics (spec §8.3)', () => {
  it('fire counts chose and deferred; inversion counts only a choice that differs from the fallback', () => {
    const m = slot4Metrics([
      decision({ verdict: 'chose', model: 'sonnet' }), // fires, inverts
      decision({ verdict: 'chose', model: 'haiku' }), // fires, agrees with the default
      decision({ verdict: 'not_applicable' }),
      decision({ verdict: 'not_applicable' }),
    ]);
    expect(m).toEqual({ routed_turns: 4, fired: 2, inverted: 1, fire_rate: 0.5, inversion_rate: 0.25 });
    expect(slot4Metrics([])).toMatchObject({ fire_rate: null, inversion_rate: null });
    expect(strongCallShare([decision({ verdict: 'chose', model: 'sonnet' }), decision({ verdict: 'not_applicable' })], 'sonnet')).toBe(0.5);
  });
});

describe('arm metrics', () => {
  it('savings against the measured strong arm and the performance gap recovered', () => {
    expect(savingsVsMeasuredPct(new Decimal('0.40'), new Decimal('0.10'))!.toString()).toBe('75');
    expect(savingsVsMeasuredPct(new Decimal(0), new Decimal('0.1'))).toBeNull();
    expect(performanceGapRecovered(0.6, 0.9, 0.75)).toBeCloseTo(0.5, 12);
    expect(performanceGapRecovered(0.8, 0.8, 0.9)).toBeNull();
  });

  it('pass@k and pass^k: known values and bounds (property)', () => {
    expect(passAtK(3, 1, 1)).toBeCloseTo(1 / 3, 12);
    expect(passAtK(3, 1, 3)).toBe(1);
    expect(passHatK(3, 2, 2)).toBeCloseTo(1 / 3, 12);
    expect(passHatK(3, 3, 3)).toBe(1);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))), ([n, c, k]) => {
        const at = passAtK(n, c, k);
        const hat = passHatK(n, c, k);
        expect(at).toBeGreaterThanOrEqual(-1e-12);
        expect(at).toBeLessThanOrEqual(1 + 1e-12);
        expect(hat).toBeLessThanOrEqual(at + 1e-12); // all-pass is never likelier than any-pass
        if (k === 1) expect(at).toBeCloseTo(c / n, 12);
      }),
    );
  });
});

describe('cluster tightness', () => {
  it('separates workloads whose members are alike within and unlike across', () => {
    const items = [
      { workload: 'a', value: 0 },
      { workload: 'a', value: 0 },
      { workload: 'b', value: 10 },
      { workload: 'b', value: 10 },
    ];
    const t = clusterTightness(items, (x, y) => (x === y ? 1 : 0));
    expect(t).toEqual({ intra: 1, inter: 0, separation: 1, fingerprints: 4, pairs_intra: 2, pairs_inter: 4 });
    expect(clusterTightness([{ workload: 'a', value: 1 }], () => 1)).toMatchObject({ intra: null, inter: null, separation: null });
  });
});
