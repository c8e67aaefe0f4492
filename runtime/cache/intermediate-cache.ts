// IntermediateCache, Tier 3 (semantic-cache-phase2.md §9): intermediate results keyed by
// (document, step type, intent), so different questions about one document reuse its section summaries.
import type { WorkflowStep } from './workflow-decomposer.ts';

interface Stored {
  result: string;
  document_id: string | null;
  /** The step's input text when it was computed (what a hit is checked against). */
  input: string;
  /** What computing it cost, USD decimal string (what a hit saves). */
  cost_usd: string;
  expires_us: number;
}

/** A document reference of a step key: an id, or "id@version" (the version is part of the key). */
function baseId(ref: string): string {
  const at = ref.lastIndexOf('@');
  return at > 0 ? ref.slice(0, at) : ref;
}

/** One step of `executeWorkflow`: served from the cache or computed. */
export interface ExecutedStep extends WorkflowStep {
  result: string;
  served: boolean;
  /** Served: what computing it cost when it was kept; computed: what it cost now (USD decimal string). */
  cost_usd: string;
}

/** What an executor returns: the step's result, and optionally what computing it cost. */
export type StepResult = string | { result: string; cost_usd: string };

export interface IntermediateCacheStats {
  entries: number;
  hits: number;
  misses: number;
}

export class IntermediateCache {
  private readonly entries = new Map<string, Stored>();
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly ttlSeconds = 86_400,
    private readonly nowUs: () => number = () => Date.now() * 1000,
  ) {
    if (!(ttlSeconds > 0)) throw new RangeError(`ttlSeconds must be > 0, got ${ttlSeconds}`);
  }

  get(key: string): string | null {
    return this.lookup(key)?.result ?? null;
  }

  /** The live entry under `key` (result and the input it was computed from), counting a hit or a miss. */
  lookup(key: string): { result: string; input: string; cost_usd: string } | null {
    const e = this.entries.get(key);
    if (!e || e.expires_us <= this.nowUs()) {
      if (e) this.entries.delete(key);
      this.misses++;
      return null;
    }
    this.hits++;
    return { result: e.result, input: e.input, cost_usd: e.cost_usd };
  }

  set(key: string, result: string, documentId: string | null, input = '', costUsd = '0'): void {
    this.entries.set(key, { result, document_id: documentId, input, cost_usd: costUsd, expires_us: this.nowUs() + this.ttlSeconds * 1e6 });
  }

  invalidate(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Drops every step of `documentId`, whatever its version (a document changed); returns how many. */
  invalidateByDocument(documentId: string): number {
    let n = 0;
    for (const [k, e] of this.entries)
      if (e.document_id !== null && e.document_id.split('|').some((ref) => ref === documentId || baseId(ref) === documentId)) {
        this.entries.delete(k);
        n++;
      }
    return n;
  }

  stats(): IntermediateCacheStats {
    return { entries: this.entries.size, hits: this.hits, misses: this.misses };
  }

  /**
   * §9.4: each step from the cache when it can be, else from `executor`, whose result is kept. The
   * executor sees the steps done so far (an answer step needs its summary). `accept` may refuse a held
   * result for this step (e.g. the question it answered differs in an answer-determining token); a
   * refused step is computed and replaces the entry.
   */
  async executeWorkflow(
    steps: readonly WorkflowStep[],
    executor: (step: WorkflowStep, done: readonly ExecutedStep[]) => Promise<StepResult>,
    accept: (step: WorkflowStep, storedInput: string) => boolean = () => true,
  ): Promise<{ steps: ExecutedStep[]; hits: number }> {
    let hits = 0;
    const out: ExecutedStep[] = [];
    for (const s of steps) {
      const held = this.lookup(s.cache_key);
      if (held !== null && accept(s, held.input)) {
        hits++;
        out.push({ ...s, result: held.result, served: true, cost_usd: held.cost_usd });
        continue;
      }
      if (held !== null) {
        // Refused: it was no hit after all.
        this.hits--;
        this.misses++;
      }
      const r = await executor(s, out);
      const { result, cost_usd } = typeof r === 'string' ? { result: r, cost_usd: '0' } : r;
      this.set(s.cache_key, result, s.document_id, s.input_text, cost_usd);
      out.push({ ...s, result, served: false, cost_usd });
    }
    return { steps: out, hits };
  }
}
