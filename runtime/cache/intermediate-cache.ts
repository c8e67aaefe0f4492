// IntermediateCache, Tier 3 (semantic-cache-phase2.md §9): intermediate results keyed by
// (document, step type, intent), so different questions about one document reuse its section summaries.
import type { WorkflowStep } from './workflow-decomposer.ts';

interface Stored {
  result: string;
  document_id: string | null;
  expires_us: number;
}

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
    const e = this.entries.get(key);
    if (!e || e.expires_us <= this.nowUs()) {
      if (e) this.entries.delete(key);
      this.misses++;
      return null;
    }
    this.hits++;
    return e.result;
  }

  set(key: string, result: string, documentId: string | null): void {
    this.entries.set(key, { result, document_id: documentId, expires_us: this.nowUs() + this.ttlSeconds * 1e6 });
  }

  invalidate(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Drops every step of `documentId` (a document changed); returns how many. */
  invalidateByDocument(documentId: string): number {
    let n = 0;
    for (const [k, e] of this.entries)
      if (e.document_id === documentId || e.document_id?.split('|').includes(documentId)) {
        this.entries.delete(k);
        n++;
      }
    return n;
  }

  stats(): IntermediateCacheStats {
    return { entries: this.entries.size, hits: this.hits, misses: this.misses };
  }

  /** §9.4: each step from the cache when it can be, else from `executor`, whose result is kept. */
  async executeWorkflow(steps: readonly WorkflowStep[], executor: (step: WorkflowStep) => Promise<string>): Promise<{ steps: WorkflowStep[]; hits: number }> {
    let hits = 0;
    const out: WorkflowStep[] = [];
    for (const s of steps) {
      const cached = this.get(s.cache_key);
      if (cached !== null) {
        hits++;
        out.push({ ...s, result: cached });
        continue;
      }
      const result = await executor(s);
      this.set(s.cache_key, result, s.document_id);
      out.push({ ...s, result });
    }
    return { steps: out, hits };
  }
}
