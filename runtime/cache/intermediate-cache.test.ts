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
    // The summary is the document's, whatever the question, so other questions can reuse it.
    expect(steps[0]!.cache_key).toBe('contract-7:summarize:overview');
    expect(steps[1]!.cache_key).toBe('contract-7:answer:termination-terms');
    expect(decompose('Who may end the contract?', 'contract-7')[0]!.cache_key).toBe(steps[0]!.cache_key);
  });
  it('a multi-part question is one step per part (after the summary when there is a document)', () => {
    expect(decompose('Who signed it? When does it expire? What is the fee?')).toHaveLength(3);
    expect(decompose('Who signed it? When does it expire? What is the fee?', 'c1').map((s) => s.step_type)).toEqual(['summarize', 'answer', 'answer', 'answer']);
  });
  it('the intent keeps every content word, so long questions differing late do not share a key', () => {
    expect(extractIntent('What notice period applies to termination by the employer under clause nine')).not.toBe(
      extractIntent('What notice period applies to termination by the employee under clause nine'),
    );
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
    cache.set('d1@v2:summarize:x', 'S2', 'd1@v2');
    expect(cache.invalidateByDocument('d1')).toBe(3); // every version of d1, and the comparison reading it
    expect(cache.get('d1|d2:compare:x')).toBeNull();
    now = 11e6;
    expect(cache.get('d2:summarize:x')).toBeNull();
    expect(() => new IntermediateCache(0)).toThrow(RangeError);
  });
});
