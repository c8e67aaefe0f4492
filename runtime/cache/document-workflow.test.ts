import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import { DOCUMENT_IDS_METADATA_KEY, documentRequestOf, withDocuments } from './document-request.ts';
import { STEP_TYPE_METADATA_KEY } from './document-workflow.ts';
import { DocumentWorkflowTier } from './document-workflow.ts';
import { createCachedProvider } from './cached-provider.ts';
import { SemanticCache } from './semantic-cache.ts';

const ask = (question: string, docs: { id: string; text: string }[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest =>
  withDocuments(
    { model: 'm', system: null, system_volatile: null, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: question }] }], temperature: 0, max_tokens: 256, ...extra },
    docs,
  );

/** A provider whose answer is a function of the whole request text, counting its calls per step type. */
function recordingProvider() {
  const calls: string[] = [];
  const provider = {
    name: 'test',
    capabilities: () => ({ tools: false, vision: false, prompt_caching: false, system_prompt: true, context_window: 10_000 }),
    complete(r: CanonicalRequest): Promise<CanonicalResponse> {
      calls.push(r.metadata?.[STEP_TYPE_METADATA_KEY] ?? 'whole');
      const text = r.messages.flatMap((m) => m.content.map((b) => (b.type === 'text' ? b.text : ''))).join('|');
      let h = 0;
      for (const c of text) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      return Promise.resolve({ model: r.model, content: [{ type: 'text', text: `answer ${h.toString(16)}` }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 1, request_id: 'r' });
    },
  };
  return { provider, calls };
}

const V1 = 'The office opens at nine. Visitors sign in at the front desk.';
const V2 = 'The office opens at ten. Visitors sign in at the front desk.';
const OTHER = 'The warehouse opens at six. Drivers report to the loading bay.';

function setup(gate = true) {
  const { provider, calls } = recordingProvider();
  const tier = new DocumentWorkflowTier({ costOf: () => '0.001', gate });
  const cache = new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, costOf: () => '0.001', intermediate: tier });
  return { cached: createCachedProvider(provider, cache), calls, cache, provider, tier };
}

describe('document requests', () => {
  it('carry documents before the question and name them in metadata; a malformed one is refused', () => {
    const r = ask('When does it open?', [{ id: 'office', text: V1 }]);
    expect(r.metadata?.[DOCUMENT_IDS_METADATA_KEY]).toBe('office');
    const d = documentRequestOf(r)!;
    expect(d.question).toBe('When does it open?');
    expect(d.documents[0]!.version).not.toBe(documentRequestOf(ask('When does it open?', [{ id: 'office', text: V2 }]))!.documents[0]!.version);
    expect(() => documentRequestOf({ ...r, metadata: { [DOCUMENT_IDS_METADATA_KEY]: 'a|b' } })).toThrow(RangeError);
    expect(() => ask('q', [{ id: 'a|b', text: 'x' }])).toThrow(RangeError);
  });
});

describe('Tier 3 behind the cached provider', () => {
  it('a second question on the same document reuses its summary and computes only the answer', async () => {
    const { cached, calls } = setup();
    await cached.complete(ask('When does the office open?', [{ id: 'office', text: V1 }]));
    expect(calls).toEqual(['summarize', 'answer']);
    await cached.complete(ask('Where do visitors sign in?', [{ id: 'office', text: V1 }]));
    expect(calls).toEqual(['summarize', 'answer', 'answer']);
  });

  it('never serves a summary or an answer of an edited document', async () => {
    const { cached, calls, cache, provider, tier } = setup();
    const first = await cached.complete(ask('When does the office open?', [{ id: 'office', text: V1 }]));
    const out = await cache.complete(ask('When does the office open?', [{ id: 'office', text: V2 }]), () => Promise.reject(new Error('unused')), (r) => provider.complete(r));
    expect(out.servedBy).toBeNull();
    expect(out.steps!.every((s) => !s.served)).toBe(true);
    expect(calls.slice(2)).toEqual(['summarize', 'answer']);
    expect(out.response.content).not.toEqual(first.content);
    // The old version's steps are gone, not just bypassed.
    expect(tier.cache.stats().entries).toBe(2);
  });

  it('the same words about another document miss; the same question again is served whole', async () => {
    const { cached, calls, cache } = setup();
    await cached.complete(ask('When does it open?', [{ id: 'office', text: V1 }]));
    await cached.complete(ask('When does it open?', [{ id: 'warehouse', text: OTHER }]));
    expect(calls).toEqual(['summarize', 'answer', 'summarize', 'answer']);
    const again = await cache.complete(ask('When does it open, please?', [{ id: 'office', text: V1 }]), () => Promise.reject(new Error('unused')), () => Promise.reject(new Error('no call expected')));
    expect(again.servedBy).toBe('intermediate');
    expect(again.response.usage.input_tokens).toBe(0);
  });

  it('a comparison asked in other words reuses both summaries; a reversed one is refused by the gate', async () => {
    const { cached, calls } = setup();
    const docs = [
      { id: 'office', text: V1 },
      { id: 'warehouse', text: OTHER },
    ];
    await cached.complete(ask('Compare the opening hours of Office and Warehouse', docs));
    expect(calls).toEqual(['summarize', 'summarize', 'compare']);
    await cached.complete(ask('How do the two sites differ in opening hours? Compare them.', docs));
    expect(calls.slice(3)).toEqual(['compare']);
    await cached.complete(ask('Does the Office open earlier than the Warehouse?', docs));
    const before = calls.length;
    await cached.complete(ask('Does the Warehouse open earlier than the Office?', docs));
    expect(calls.slice(before)).toEqual(['answer']);
    // Without the gate the same sorted words would have served the reversed question the held answer.
    const open = setup(false);
    await open.cached.complete(ask('Does the Office open earlier than the Warehouse?', docs));
    await open.cached.complete(ask('Does the Warehouse open earlier than the Office?', docs));
    expect(open.calls).toEqual(['summarize', 'summarize', 'answer']);
  });

  it('no step crosses tenants or system prompts', async () => {
    const { cached, calls } = setup();
    await cached.complete(ask('When does the office open?', [{ id: 'office', text: V1 }], { metadata: { cache_tenant: 'a' } }));
    await cached.complete(ask('When does the office open?', [{ id: 'office', text: V1 }], { metadata: { cache_tenant: 'b' } }));
    await cached.complete(ask('When does the office open?', [{ id: 'office', text: V1 }], { system: 'Answer in French.' }));
    expect(calls).toEqual(['summarize', 'answer', 'summarize', 'answer', 'summarize', 'answer']);
  });

  it('a document request that offers tools or is time-sensitive goes to the provider whole', async () => {
    const { cached, calls } = setup();
    await cached.complete(ask('Is the office open right now?', [{ id: 'office', text: V1 }]));
    await cached.complete(ask('When does the office open?', [{ id: 'office', text: V1 }], { tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }] }));
    expect(calls).toEqual(['whole', 'whole']);
  });
});
