// A paid embedder's price in a query stream's figures: every Tier 2 lookup pays its embedding, hit or
// miss, so the cache-on cost and the semantic and all-tier net savings are net of it, to the last digit.
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { UnpricedEmbedderError } from '../../runtime/cache/embedding-price.ts';
import { createPaidEmbedder, pricesWithEmbedder } from '../../runtime/cache/test-support/paid-embedder.ts';
import { createHashingProvider } from '../../runtime/patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { loadQueryStream } from './load-stream.ts';
import { renderStreamTable } from './render-stream-table.ts';
import { runStream } from './run-stream.ts';
import { streamFigures } from './stream-metrics.ts';

const WORKLOADS = join(import.meta.dirname, '..', '..', 'workloads');
// 25 tokens per text at $0.13 per million: $0.00000325 per embedded query.
const PER_LOOKUP = new Decimal(25).times('0.13').dividedBy(1_000_000);

describe('query streams charge a paid embedder', () => {
  it('each lookup pays its embedding; cost on and the semantic and all net savings fall by exactly the embedding total', async () => {
    const stream = loadQueryStream(join(WORKLOADS, 'cache-adversarial'));
    const local = await runStream(stream, { cache: true, embedder: createHashingProvider(384), prices: loadPriceTable() });
    const paid = await runStream(stream, { cache: true, embedder: createPaidEmbedder(25), prices: pricesWithEmbedder('0.13') });
    // Same vectors, so the same hits: only the money moves.
    expect(paid.records.map((r) => [r.id, r.servedBy, r.correct])).toEqual(local.records.map((r) => [r.id, r.servedBy, r.correct]));
    const charged = paid.records.filter((r) => new Decimal(r.embedCostUsd ?? 0).gt(0));
    expect(charged.length).toBeGreaterThan(0);
    expect(charged.some((r) => r.servedBy === 'semantic') || charged.some((r) => r.servedBy === null)).toBe(true);
    for (const [i, r] of paid.records.entries()) {
      // A lookup embeds one text (or none: Tier 1 answered, Tier 2 was not eligible, or the text was remembered).
      expect(['0', PER_LOOKUP.toFixed()]).toContain(r.embedCostUsd);
      expect(new Decimal(r.spentUsd).equals(new Decimal(local.records[i]!.spentUsd).plus(r.embedCostUsd!))).toBe(true);
    }
    const f0 = streamFigures(local.records);
    const f1 = streamFigures(paid.records);
    const embed = PER_LOOKUP.times(charged.length);
    expect(f0.embed_cost_usd).toBe('0');
    expect(f1.embed_cost_usd).toBe(embed.toFixed());
    expect(new Decimal(f1.cost_on_usd).equals(new Decimal(f0.cost_on_usd).plus(embed))).toBe(true);
    expect(f1.cost_off_usd).toBe(f0.cost_off_usd);
    for (const [j, t] of f1.tiers.entries()) {
      const before = f0.tiers[j]!;
      expect(t.avoided_usd).toBe(before.avoided_usd);
      const paysEmbedding = t.tier === 'semantic' || t.tier === 'all';
      expect(new Decimal(t.net_savings_usd).equals(new Decimal(before.net_savings_usd).minus(paysEmbedding ? embed : 0))).toBe(true);
    }
    const header = { name: stream.name, set: stream.set, embedder: 'x', delta: 0.01, gate: true, cache: true, warm: 0 };
    expect(renderStreamTable(header, f1)).toContain(`cache on $${f1.cost_on_usd} (of which embedding $${embed.toFixed()}; net savings of semantic and all are after it);`);
    expect(renderStreamTable(header, f0)).toContain(`cache on $${f0.cost_on_usd}; net savings charge`);
  });

  it('a paid embedder the price table does not price is refused before the first query', async () => {
    const stream = loadQueryStream(join(WORKLOADS, 'cache-adversarial'));
    await expect(runStream(stream, { cache: true, embedder: createPaidEmbedder(25, 'cohere:embed-unknown-v9'), prices: loadPriceTable() })).rejects.toThrow(UnpricedEmbedderError);
  });
});
