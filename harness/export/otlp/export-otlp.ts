import { mkdirSync, writeFileSync } from 'node:fs';
import { refuseExisting } from '../refuse-existing.ts';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { PACKAGE_VERSION } from '../package-version.ts';
import { readRunTraces } from '../run-trace.ts';
import { createOtlpExporter, otlpJson, sendSpans, type OtlpTarget } from './otlp-send.ts';
import { runSpans } from './trace-spans.ts';

/** What `bench export --format otlp` was asked. */
export interface OtlpExportOptions {
  dbPath: string;
  runId: string | null;
  includeContent: boolean;
  outPath: string | null;
  /** `--force`: replace an existing `outPath` (refused otherwise). */
  force: boolean;
  target: OtlpTarget | null;
}

/** What was exported, for the command's summary line. */
export interface OtlpExportSummary {
  runs: string[];
  spans: number;
}

/** Every span of the chosen runs of a trace DB (read-only). */
export function spansOfDb(db: Database, dbPath: string, runId: string | null, includeContent: boolean): { runs: string[]; spans: ReadableSpan[] } {
  const runs = readRunTraces(db, dbPath, runId);
  return { runs: runs.map((r) => r.runId), spans: runs.flatMap((r) => runSpans(r, { includeContent, serviceVersion: PACKAGE_VERSION })) };
}

/** Writes the spans as OTLP/JSON to `outPath` and/or sends them to the endpoint. */
export async function exportOtlp(db: Database, opts: OtlpExportOptions): Promise<OtlpExportSummary> {
  // Refused before anything is read or sent: an export never half-happens.
  if (opts.outPath && !opts.force) refuseExisting(opts.outPath, '--out FILE');
  const { runs, spans } = spansOfDb(db, opts.dbPath, opts.runId, opts.includeContent);
  if (opts.outPath) {
    mkdirSync(dirname(opts.outPath), { recursive: true });
    writeFileSync(opts.outPath, `${otlpJson(spans)}\n`);
  }
  if (opts.target) {
    const exporter = createOtlpExporter(opts.target);
    try {
      await sendSpans(exporter, spans, opts.target.url);
    } finally {
      await exporter.shutdown();
    }
  }
  return { runs, spans: spans.length };
}
