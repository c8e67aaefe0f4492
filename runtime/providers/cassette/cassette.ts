import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CanonicalRequest } from '../../types/request.ts';
import type { CanonicalResponse } from '../../types/response.ts';
import type { Provider, ProviderCapabilities } from '../provider.ts';
import { requestKey } from './request-key.ts';

/** One recorded exchange: a JSONL line of the cassette. */
export interface CassetteEntry {
  version: 1;
  key: string;
  /** The provider that really answered (sim, anthropic, openai...). */
  provider: string;
  model: string;
  capabilities: ProviderCapabilities;
  response: CanonicalResponse;
}

/** The replayed run asked for a request the cassette does not hold: a setup error (exit 2). */
export class CassetteMissError extends Error {
  constructor(
    readonly file: string,
    readonly key: string,
    readonly model: string,
    readonly turnText: string,
  ) {
    super(`${file}: no recorded response for request ${key.slice(0, 16)}… (model ${model}, last user text "${turnText.slice(0, 60)}"); record it again with --record`);
    this.name = 'CassetteMissError';
  }
}

/** Wraps a provider and appends every exchange to a JSONL cassette keyed by the request's SHA-256. */
export function createRecordingProvider(inner: Provider, file: string): Provider {
  mkdirSync(dirname(file), { recursive: true });
  return {
    name: inner.name,
    capabilities: (model) => inner.capabilities(model),
    async complete(request, signal) {
      const response = await inner.complete(request, signal);
      const entry: CassetteEntry = { version: 1, key: requestKey(request), provider: inner.name, model: request.model, capabilities: inner.capabilities(request.model), response };
      appendFileSync(file, `${JSON.stringify(entry)}\n`);
      return response;
    },
  };
}

function lastUserText(request: CanonicalRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const t = request.messages[i]!.content.find((b) => b.type === 'text');
    if (t && t.type === 'text') return t.text;
  }
  return '';
}

/** Serves responses from a cassette; the same request replayed twice gets the next recorded answer for it. */
export function createReplayProvider(file: string): Provider & { sourceProviders(): string[] } {
  if (!existsSync(file)) throw new CassetteMissError(file, 'cassette file not found', '-', '');
  const byKey = new Map<string, CassetteEntry[]>();
  const capabilities = new Map<string, ProviderCapabilities>();
  const sources = new Set<string>();
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let e: CassetteEntry;
      try {
        e = JSON.parse(line) as CassetteEntry;
      } catch {
        throw new Error(`${file}:${i + 1}: not a cassette line (invalid JSON)`);
      }
      if (e.version !== 1 || typeof e.key !== 'string' || !e.response) throw new Error(`${file}:${i + 1}: not a cassette entry of version 1`);
      byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
      capabilities.set(e.model, e.capabilities);
      sources.add(e.provider);
    });
  const served = new Map<string, number>();
  return {
    name: 'replay',
    sourceProviders: () => [...sources].sort(),
    capabilities(model) {
      const c = capabilities.get(model);
      if (!c) throw new CassetteMissError(file, 'capabilities', model, '');
      return c;
    },
    async complete(request) {
      const key = requestKey(request);
      const entries = byKey.get(key) ?? [];
      const n = served.get(key) ?? 0;
      const entry = entries[Math.min(n, entries.length - 1)];
      if (!entry) throw new CassetteMissError(file, key, request.model, lastUserText(request));
      served.set(key, n + 1);
      return structuredClone(entry.response);
    },
  };
}
