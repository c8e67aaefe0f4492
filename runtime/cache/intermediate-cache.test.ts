import { describe, expect, it } from 'vitest';
import { IntermediateCache } from './intermediate-cache.ts';
import { decompose, extractDocumentSections, extractIntent } from './workflow-decomposer.ts';

describe('WorkflowDecomposer', () => {
  it('a lone question is one answer step', () => {
    const steps = decompose('What is a mutex?');
    expect(steps.map((s) => s.step_type)).toEqual(['answer']);
    expect(steps[0]!.document_id).toBeNull();
  });
  it('a question on a document is summarise then answer, keyed by document, type and intent', () => {
    const steps = decompose('What are the termination terms?', 'contract-7');
    expect(steps.map((s) => s.step_type)).toEqual(['summarize', 'answer']);
    expect(steps[0]!.cache_key).toBe('contract-7:summarize:termination-terms');
  });
  it('a multi-part question is one step per part', () => {
    expect(decompose('Who signed it? When does it expire? What is the fee?', 'c1')).toHaveLength(3);
  });
  it('a comparison summarises both documents, then compares', () => {
    const steps = decompose('Compare the pricing of these two offers', 'offerA|offerB');
    expect(steps.map((s) => [s.step_type, s.document_id])).toEqual([
      ['summarize', 'offerA'],
      ['summarize', 'offerB'],
      ['compare', 'offerA|offerB'],
    ]);
  });
  it('extracts an order-insensitive intent and document sections; refuses an empty prompt', () => {
    expect(extractIntent('termination terms of the contract')).toBe(extractIntent('the contract: terms of termination'));
    expect(extractDocumentSections('# A\ntext\n\n# B\nmore\n\n\n')).toEqual(['# A\ntext', '# B\nmore']);
    expect(() => decompose('  ')).toThrow(RangeError);
  });
});

describe('IntermediateCache', () => {
  it('reuses a document summary across different questions (a Tier 3 hit)', async () => {
    const cache = new IntermediateCache();
    let executed = 0;
    const exec = (s: { step_type: string; input_text: string }) => Promise.resolve(`${s.step_type}:${++executed}`);
    await cache.executeWorkflow(decompose('Compare the pricing of these offers', 'A|B'), exec);
    const second = await cache.executeWorkflow(decompose('Compare the support terms of these offers', 'A|B'), exec);
    expect(second.hits).toBe(2); // both overviews reused, only the comparison computed
    expect(executed).toBe(4);
    expect(cache.stats()).toMatchObject({ hits: 2 });
  });
  it('expires entries after the TTL and invalidates by document', () => {
    let now = 0;
    const cache = new IntermediateCache(10, () => now);
    cache.set('d1:summarize:x', 'S', 'd1');
    cache.set('d2:summarize:x', 'T', 'd2');
    cache.set('d1|d2:compare:x', 'C', 'd1|d2');
    expect(cache.get('d1:summarize:x')).toBe('S');
    expect(cache.invalidateByDocument('d1')).toBe(2);
    expect(cache.get('d1|d2:compare:x')).toBeNull();
    now = 11e6;
    expect(cache.get('d2:summarize:x')).toBeNull();
    expect(() => new IntermediateCache(0)).toThrow(RangeError);
  });
});
