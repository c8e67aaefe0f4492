// `bench analyze --skip-execute --stream-report <file>`: every figure of a cache stream report again,
// from its per-query records alone, and a check that they equal the figures the run wrote.
import { existsSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { formatAjvErrors, validatorFor } from '../../../../runtime/core/schemas.ts';
import type { CacheStreamReport } from '../../../../schemas/types/cache-stream-report.ts';
import type { CliIO } from '../../../io/cli-io.ts';
import { EXIT, SetupError } from '../../../errors.ts';
import { recordFromJson } from '../../../cache-bench/query-records.ts';
import { renderStreamTable } from '../../../cache-bench/render-stream-table.ts';
import { streamFigures, type StreamFigures } from '../../../cache-bench/stream-metrics.ts';

/** The first path at which two figure trees differ ("tiers[1].false_hit_rate.k"), or null when equal. */
export function firstDifference(a: unknown, b: unknown, at = 'figures'): string | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`);
      if (d) return d;
    }
  }
  return `${at} (report ${JSON.stringify(a)}, recomputed ${JSON.stringify(b)})`;
}

/** Recomputes each stream's figures from its records; exit 1 when any differs from the written figures, 2 on an unreadable report. */
export function analyzeStreamReport(path: string, io: CliIO, format: 'text' | 'markdown' = 'text', width: number | null = null): number {
  if (!existsSync(path)) throw new SetupError(`${path}: no such file; pass the JSON a \`bench run --workload cache-*\` wrote (its --json path, or the path it printed)`);
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new SetupError(`${path}: not JSON (${(e as Error).message}); pass the stream report a \`bench run --workload cache-*\` wrote`);
  }
  const check = validatorFor<CacheStreamReport>('cache-stream-report.schema.json');
  if (!check(report)) {
    const errs = formatAjvErrors(check.errors);
    const old = errs.some((e) => /must have required property 'records'/.test(e));
    throw new SetupError(
      `${path}: not a cache stream report this version reads (schemas/cache-stream-report.schema.json): ${errs.slice(0, 3).join('; ')}${old ? '. It was written before per-query records were kept: run the stream again to get them' : ''}`,
    );
  }
  let mismatch = false;
  for (const [i, s] of report.streams.entries()) {
    const figures: StreamFigures = streamFigures(s.records.map(recordFromJson), s.figures.wrong_hit_penalty);
    io.out(renderStreamTable({ name: s.name, set: s.set, embedder: s.embedder, delta: s.delta, gate: s.gate, cache: s.cache, warm: 0, ...(s.labels ? { labels: s.labels } : {}) }, figures, format, width));
    const diff = firstDifference(s.figures, figures);
    if (diff) {
      mismatch = true;
      io.out(`MISMATCH: ${path}: streams[${i}] (${s.name}): the written ${diff}`);
    } else io.out(`recomputed from ${s.records.length} per-query records: every figure equals the report's`);
    io.out('');
  }
  return mismatch ? EXIT.assertionFailed : EXIT.ok;
}
