// canonicalForm: what a store derives from a turn's features (normalised features, canonical JSON, signature)
// in one pass, kept per object only for frozen features, so a caller that mutates its features is never
// answered from a stale form.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalFeaturesJson, canonicalForm, freezeFeatures, isFrozenFeatures, normalizeFeatures, structuralSignature, type StructuralFeatures } from './structural-features.ts';

const words = fc.array(fc.constantFrom('.py', '.TS', '.md', 'src', 'tests', 'read', 'write', 'debug', 'doc', 'Bash', 'Edit'), { maxLength: 5 });
const featuresArb: fc.Arbitrary<StructuralFeatures> = fc.record({
  file_extensions: words,
  file_path_buckets: words,
  tool_names: words,
  side_effect_classes: words,
  has_images: fc.boolean(),
  has_tool_calls_in_history: fc.boolean(),
  estimated_input_tokens_bucket: fc.integer({ min: 0, max: 3 }),
  intent_tags: words,
  workspace_hash: fc.string({ minLength: 1, maxLength: 8 }),
  workload_id: fc.option(fc.constantFrom('mmlu-a', 'mmlu-b'), { nil: null }),
});

describe('canonicalForm', () => {
  it('equals normalizeFeatures, canonicalFeaturesJson and structuralSignature, frozen or not (seeded)', () => {
    fc.assert(
      fc.property(featuresArb, fc.boolean(), (f, freeze) => {
        const expected = { features: normalizeFeatures(f), json: canonicalFeaturesJson(f), sig: structuralSignature(f) };
        const input = freeze ? freezeFeatures(structuredClone(f)) : f;
        expect(canonicalForm(input)).toEqual(expected);
        expect(canonicalForm(input)).toEqual(expected);
        expect(isFrozenFeatures(canonicalForm(input).features)).toBe(true);
        // The normal form handed back in is its own canonical form, answered from the memo.
        const normal = canonicalForm(input).features;
        expect(canonicalForm(normal)).toEqual(expected);
        expect(canonicalForm(normal).features).toBe(normal);
      }),
      { seed: 20261129, numRuns: 200 },
    );
  });

  it('is kept per object for frozen features only: mutated features are read afresh', () => {
    const f: StructuralFeatures = { file_extensions: ['.py'], file_path_buckets: [], tool_names: [], side_effect_classes: [], has_images: false, has_tool_calls_in_history: false, estimated_input_tokens_bucket: 0, intent_tags: [], workspace_hash: 'ab', workload_id: 'w' };
    const first = canonicalForm(f);
    f.file_extensions.push('.md');
    f.estimated_input_tokens_bucket = 2;
    const second = canonicalForm(f);
    expect(second.sig).not.toBe(first.sig);
    expect(second.sig).toBe(structuralSignature(f));
    const frozen = freezeFeatures({ ...f, file_extensions: ['.ts'] });
    expect(canonicalForm(frozen)).toBe(canonicalForm(frozen));
    expect(() => (frozen.file_extensions as string[]).push('.js')).toThrow(TypeError);
  });
});
