import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareFeatureList, preparedSimilarity, SIMILARITY_WEIGHTS, similarity, structuralSimilarity } from './index.ts';
import { arbFeatures, arbWideFeatures } from './test-support/arbitraries.ts';
import { features } from './test-support/feature-fixtures.ts';

describe('similarity (pattern-store.md §5.3)', () => {
  it('weights are positive and sum to 1', () => {
    expect(Object.values(SIMILARITY_WEIGHTS).every((w) => w > 0)).toBe(true);
    expect(Object.values(SIMILARITY_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('is symmetric and within [0, 1], with and without the workload blend', () => {
    fc.assert(
      fc.property(arbFeatures, arbFeatures, fc.boolean(), (a, b, useWorkloadId) => {
        const s = similarity(a, b, { useWorkloadId });
        expect(s).toBe(similarity(b, a, { useWorkloadId }));
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('scores identical features exactly 1', () => {
    fc.assert(
      fc.property(arbFeatures, fc.boolean(), (a, useWorkloadId) => {
        expect(similarity(a, structuredClone(a), { useWorkloadId })).toBe(1);
        expect(structuralSimilarity(a, a)).toBe(1);
      }),
    );
  });

  it('ignores workspace_hash and has_tool_calls_in_history', () => {
    fc.assert(
      fc.property(arbFeatures, arbFeatures, (a, b) => {
        const b2 = { ...b, workspace_hash: `${a.workspace_hash}-x`, has_tool_calls_in_history: !b.has_tool_calls_in_history };
        expect(similarity(a, b2)).toBe(similarity(a, b));
      }),
    );
  });

  it('is the plain weighted Jaccard unless both sides carry a workload_id', () => {
    fc.assert(
      fc.property(arbFeatures, arbFeatures, (a, b) => {
        const blended = a.workload_id !== null && b.workload_id !== null;
        if (!blended) expect(similarity(a, b)).toBe(structuralSimilarity(a, b));
        else if (a.workload_id === b.workload_id) expect(similarity(a, b)).toBeCloseTo(0.85 + 0.15 * structuralSimilarity(a, b), 12);
        else expect(similarity(a, b)).toBeCloseTo(0.15 * structuralSimilarity(a, b), 12);
        expect(similarity(a, b, { useWorkloadId: false })).toBe(structuralSimilarity(a, b));
      }),
    );
  });

  it('counts empty sets on both sides as a match and on one side as a miss', () => {
    expect(similarity(features(), features())).toBe(1);
    expect(similarity(features(), features({ intent_tags: ['debug'] }))).toBeCloseTo(0.7, 12);
    expect(similarity(features({ intent_tags: ['debug', 'test'] }), features({ intent_tags: ['debug'] }))).toBeCloseTo(0.85, 12);
    expect(similarity(features(), features({ estimated_input_tokens_bucket: 3, has_images: true }))).toBeCloseTo(0.85, 12);
  });

  it('scores every pair of a prepared list exactly as similarity does (the same counts, from bits built once)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(arbFeatures, arbWideFeatures), { maxLength: 8 }), fc.boolean(), (list, useWorkloadId) => {
        const prepared = prepareFeatureList(list);
        for (let i = 0; i < list.length; i++)
          for (let j = 0; j < list.length; j++) expect(preparedSimilarity(prepared[i]!, prepared[j]!, { useWorkloadId })).toBe(similarity(list[i]!, list[j]!, { useWorkloadId }));
      }),
      { seed: 28, numRuns: 400 },
    );
    // Repeated labels count once on both paths.
    const a = features({ intent_tags: ['debug', 'debug', 'test'], tool_names: ['read_file', 'read_file'] });
    const b = features({ intent_tags: ['debug'], tool_names: ['read_file', 'run_shell'] });
    const [pa, pb] = prepareFeatureList([a, b]);
    expect(preparedSimilarity(pa!, pb!)).toBe(similarity(a, b));
    // Bits of another list mean other labels.
    expect(() => preparedSimilarity(pa!, prepareFeatureList([b])[0]!)).toThrow(/different lists/);
  });
});
