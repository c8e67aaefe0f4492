import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { BusEvent, Subscription } from '../../../runtime/events/index.ts';
import type { Provenance } from '../../../schemas/types/report.ts';
import type { WorkloadRunRecord } from '../../runs/run-store.ts';
import { createOtlpExporter, type OtlpTarget } from './otlp-send.ts';
import { repSpans, runContext, runSpanDraft, SPAN_SOURCE_TYPES, toReadableSpan, type RunHeader } from './trace-spans.ts';
import type { Decimal } from 'decimal.js';

/** Options for `createOtlpStream`. */
export interface OtlpStreamOptions {
  runId: string;
  createdAtUs: number;
  /** The run's provenance as known at its start (the resource says whether the sim answered). */
  provenance: Provenance | null;
  target: OtlpTarget;
  serviceVersion: string;
  /** How long `finish` waits for the last batches before giving up with a warning. Default 5 s. */
  finishTimeoutMs?: number;
  /** Batch delay of the span processor. Default 1 s. */
  scheduledDelayMs?: number;
}

/** `bench run --otlp-endpoint`: spans sent while the run goes, one rep at a time, never blocking it. */
export interface OtlpStream {
  /** The fast-path bus subscription that keeps each session's span-relevant events until its rep is done. */
  readonly subscription: Subscription;
  /** A rep was committed: its spans (the same as `bench export` builds) are queued for the next batch. */
  repDone(record: WorkloadRunRecord): void;
  /** Queues the run span, waits up to the timeout for the last batches; returns warnings (never throws). */
  finish(provenance: Provenance | null): Promise<string[]>;
}

/** Wraps the OTLP exporter to count what failed, so failures become one warning instead of a crash or a log flood. */
function countingExporter(inner: SpanExporter, failures: { batches: number; spans: number; last: string | null }): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
      inner.export(spans, (r) => {
        if (r.code !== ExportResultCode.SUCCESS) {
          failures.batches += 1;
          failures.spans += spans.length;
          failures.last = r.error?.message ?? 'unknown error';
        }
        done(r);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

function within<T>(p: Promise<T>, ms: number): Promise<'done' | 'timeout'> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve('timeout'), ms);
    t.unref();
    p.then(
      () => {
        clearTimeout(t);
        resolve('done');
      },
      () => {
        clearTimeout(t);
        resolve('done');
      },
    );
  });
}

/**
 * Streams a run's spans to an OTLP/HTTP endpoint through the SDK's BatchSpanProcessor: the bus
 * subscriber only files events by session (no I/O), a rep's spans are built when it is committed,
 * and batches go out on the processor's timer. Nothing here throws into the run.
 */
export function createOtlpStream(options: OtlpStreamOptions): OtlpStream {
  const header: RunHeader = { runId: options.runId, createdAtUs: options.createdAtUs, provenance: options.provenance };
  const ctx = runContext(header, options.serviceVersion);
  const failures = { batches: 0, spans: 0, last: null as string | null };
  const warnings: string[] = [];
  const processor = new BatchSpanProcessor(countingExporter(createOtlpExporter(options.target), failures), {
    // A big queue: spans are only dropped if the collector stays away for a whole large run.
    maxQueueSize: 65_536,
    maxExportBatchSize: 512,
    scheduledDelayMillis: options.scheduledDelayMs ?? 1000,
  });
  const bySession = new Map<string, BusEvent[]>();
  const reps: { startUs: number; endUs: number; costUsd: Decimal }[] = [];
  let finished = false;

  return {
    subscription: {
      name: 'otlp-stream',
      filter: { event_types: SPAN_SOURCE_TYPES },
      fast_path: true,
      handler(event) {
        if (finished) return;
        const list = bySession.get(event.session_id);
        if (list) list.push(event);
        else bySession.set(event.session_id, [event]);
      },
    },
    repDone(record) {
      if (finished) return;
      try {
        const events = record.session_ids.flatMap((id) => bySession.get(id) ?? []);
        const transcripts = new Map();
        const built = repSpans(ctx, header, { record, events, transcripts }, { includeContent: false });
        for (const span of built.spans) processor.onEnd(span);
        reps.push(built);
      } catch (e) {
        warnings.push(`--otlp-endpoint: could not build the spans of ${record.workload} rep ${record.rep + 1}: ${(e as Error).message}`);
      } finally {
        for (const id of record.session_ids) bySession.delete(id);
      }
    },
    async finish(provenance) {
      if (finished) return warnings;
      finished = true;
      bySession.clear();
      try {
        const root = runSpanDraft({ ...header, provenance }, reps);
        processor.onEnd(toReadableSpan(ctx, root, root.key));
      } catch (e) {
        warnings.push(`--otlp-endpoint: could not build the run span: ${(e as Error).message}`);
      }
      const ms = options.finishTimeoutMs ?? 5000;
      const flushed = await within(processor.forceFlush(), ms);
      await within(processor.shutdown(), 1000);
      if (flushed === 'timeout') warnings.push(`--otlp-endpoint ${options.target.url}: the collector did not take the last spans within ${ms} ms; some spans may be missing there`);
      if (failures.batches > 0) warnings.push(`--otlp-endpoint ${options.target.url}: ${failures.batches} batch(es), ${failures.spans} span(s) not accepted (${failures.last}); the run and its trace DB are complete, resend with bench export --format otlp --endpoint`);
      return warnings;
    },
  };
}
