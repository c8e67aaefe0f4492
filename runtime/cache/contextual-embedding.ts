// ContextualEmbeddingEngine (semantic-cache-phase2.md §13): a short context summary is prepended to a text
// before it is embedded, so the same words in different settings land apart. The summary comes from the
// run's provider (the §13.4 prompt); on the simulated provider, from a deterministic emulation that says so.
import type { Provider } from '../providers/provider.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { EmbeddingEngine } from './embedding-engine.ts';
import { TaskTypeDetector } from './task-type-detector.ts';
import { extractIntent } from './workflow-decomposer.ts';

export interface ContextMeta {
  agent_id?: string | null;
  task_type?: string;
  quality_req?: number;
}

/** Produces the context summary of a text. `emulated` is true when no model wrote it. */
export interface ContextSummarizer {
  readonly emulated: boolean;
  summarize(text: string, meta: ContextMeta): Promise<string>;
}

/** §13.4's prompt. */
export function contextPrompt(text: string, meta: ContextMeta): string {
  return [
    `Text to contextualize: ${text.slice(0, 500)}`,
    `Metadata: Agent: ${meta.agent_id ?? 'none'}, Task: ${meta.task_type ?? 'general'}, Quality: ${meta.quality_req ?? 3.5}`,
    'Provide 1-2 sentence summary explaining what this is about, including the domain, intent, and any critical constraints.',
  ].join('\n');
}

/** The summary from a real model through `provider` (max 80 output tokens, temperature 0). */
export function providerSummarizer(provider: Provider, model: string): ContextSummarizer {
  return {
    emulated: false,
    async summarize(text, meta) {
      const request: CanonicalRequest = { model, system: null, system_volatile: null, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: contextPrompt(text, meta) }] }], temperature: 0, max_tokens: 80 };
      const r = await provider.complete(request);
      return r.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim();
    },
  };
}

/**
 * The simulated provider's stand-in: no model writes the summary; it is built from the detected task
 * type, the intent words and the metadata, deterministically, and starts with "[emulated]".
 */
export function emulatedSummarizer(): ContextSummarizer {
  const detector = new TaskTypeDetector();
  return {
    emulated: true,
    summarize(text, meta) {
      const task = meta.task_type && meta.task_type !== 'general' ? meta.task_type : detector.detect(text).task_type;
      return Promise.resolve(`[emulated] A ${task} request${meta.agent_id ? ` from agent ${meta.agent_id}` : ''} about ${extractIntent(text).replace(/-/g, ' ')}.`);
    },
  };
}

export class ContextualEmbeddingEngine {
  constructor(
    private readonly engine: EmbeddingEngine,
    readonly summarizer: ContextSummarizer,
  ) {}

  async generateContext(text: string, meta: ContextMeta = {}): Promise<string> {
    if (!text.trim()) throw new RangeError('Text must not be empty');
    return this.summarizer.summarize(text, meta);
  }

  /** [embedding, context summary, contextual text]. */
  async embedWithContext(text: string, meta: ContextMeta = {}): Promise<[Float32Array, string, string]> {
    const context = await this.generateContext(text, meta);
    const contextual = `${context}\n\n${text}`;
    return [await this.engine.embedText(contextual), context, contextual];
  }

  /** For `SemanticCache({ embeddingText })`: the text Tier 2 embeds is the contextualised query. */
  embeddingText(meta: ContextMeta = {}): (query: string) => Promise<string> {
    return async (query) => `${await this.generateContext(query, meta)}\n\n${query}`;
  }
}
