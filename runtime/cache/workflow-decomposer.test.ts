import { describe, expect, it } from 'vitest';
import { decompose, extractDocumentSections, extractIntent } from './workflow-decomposer.ts';

describe('WorkflowDecomposer (§8): single-step queries', () => {
  it('a lone question is one answer step, keyed by its normalised text', () => {
    const steps = decompose('What is a mutex?');
    expect(steps).toEqual([{ step_id: 's1', step_type: 'answer', intent: 'mutex', document_id: null, input_text: 'What is a mutex?', cache_key: 'query:answer:mutex', result: null }]);
  });

  it('surrounding whitespace is no part of the step', () => {
    expect(decompose('  What is a mutex?\n')[0]!.input_text).toBe('What is a mutex?');
  });

  it('refuses an empty or blank prompt', () => {
    expect(() => decompose('')).toThrow(RangeError);
    expect(() => decompose('  ')).toThrow(RangeError);
  });
});

describe('WorkflowDecomposer (§8): multi-step decomposition', () => {
  it('a multi-part question is one answer step per part, numbered in order', () => {
    const steps = decompose('Who signed it? When does it expire? What is the fee?');
    expect(steps.map((s) => [s.step_id, s.input_text])).toEqual([
      ['s1', 'Who signed it?'],
      ['s2', 'When does it expire?'],
      ['s3', 'What is the fee?'],
    ]);
  });

  it('parts split on new lines and semicolons as well as question marks', () => {
    expect(decompose('List the parties\nGive the start date').map((s) => s.input_text)).toEqual(['List the parties', 'Give the start date']);
    expect(decompose('name the fee; name the term').map((s) => s.input_text)).toEqual(['name the fee', 'name the term']);
  });
});

describe('WorkflowDecomposer (§8): document-referenced queries', () => {
  it('a question on a document is summarise then answer, keyed by document, type and intent', () => {
    const steps = decompose('What are the termination terms?', 'contract-7');
    expect(steps.map((s) => s.step_type)).toEqual(['summarize', 'answer']);
    // The summary is the document's, whatever the question, so other questions can reuse it.
    expect(steps[0]!.cache_key).toBe('contract-7:summarize:overview');
    expect(steps[1]!.cache_key).toBe('contract-7:answer:termination-terms');
    expect(decompose('Who may end the contract?', 'contract-7')[0]!.cache_key).toBe(steps[0]!.cache_key);
  });

  it('a multi-part question on a document is the summary, then one answer per part', () => {
    const steps = decompose('Who signed it? When does it expire? What is the fee?', 'c1');
    expect(steps.map((s) => s.step_type)).toEqual(['summarize', 'answer', 'answer', 'answer']);
    expect(steps.map((s) => s.step_id)).toEqual(['s1', 's2', 's3', 's4']);
    expect(steps.every((s) => s.document_id === 'c1')).toBe(true);
  });

  it('a comparison summarises both documents, then compares', () => {
    const steps = decompose('Compare the pricing of these two offers', 'offerA|offerB');
    expect(steps.map((s) => [s.step_type, s.document_id])).toEqual([
      ['summarize', 'offerA'],
      ['summarize', 'offerB'],
      ['compare', 'offerA|offerB'],
    ]);
    expect(steps[2]!.cache_key).toBe('offerA|offerB:compare:compare-offers-pricing-these-two');
  });

  it.each([
    ['Which is cheaper, plan A vs plan B?', 'compare'],
    ['What is the difference between them?', 'compare'],
    ['Which of these mentions a refund?', 'answer'],
  ])('several documents: "%s" ends with a %s step', (q, last) => {
    expect(decompose(q, 'a|b').at(-1)!.step_type).toBe(last);
  });
});

describe('WorkflowDecomposer (§8): intent extraction', () => {
  it('keeps the content words, sorted, lower-cased, without stop words or punctuation', () => {
    expect(extractIntent('What are the Termination TERMS of the contract?')).toBe('contract-termination-terms');
  });

  it('is order-insensitive and counts a repeated word once', () => {
    expect(extractIntent('termination terms of the contract')).toBe(extractIntent('the contract: terms of termination'));
    expect(extractIntent('fee fee fee')).toBe('fee');
  });

  it('keeps every content word, so long questions differing late do not share a key', () => {
    expect(extractIntent('What notice period applies to termination by the employer under clause nine')).not.toBe(
      extractIntent('What notice period applies to termination by the employee under clause nine'),
    );
  });

  it('keeps numbers and non-ASCII letters; a question of stop words only is "general"', () => {
    expect(extractIntent('Kündigung nach 30 Tagen')).toBe('30-kündigung-nach-tagen');
    expect(extractIntent('What is it?')).toBe('general');
  });
});

describe('WorkflowDecomposer (§8): document sections', () => {
  it('splits on Markdown headings and blank lines, dropping empty blocks', () => {
    expect(extractDocumentSections('# A\ntext\n\n# B\nmore\n\n\n')).toEqual(['# A\ntext', '# B\nmore']);
    expect(extractDocumentSections('intro\n## Fees\n10 USD')).toEqual(['intro', '## Fees\n10 USD']);
  });
});
