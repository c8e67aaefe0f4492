import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SetupError } from '../../errors.ts';

/** Spans per OTLP/HTTP request: big runs go in several requests, each well under collectors' body limits. */
export const SPANS_PER_REQUEST = 512;

/** The spans as an OTLP/JSON ExportTraceServiceRequest, written by the official transformer. */
export function otlpJson(spans: readonly ReadableSpan[]): string {
  const bytes = JsonTraceSerializer.serializeRequest([...spans]);
  if (!bytes) throw new Error('internal error: the OTLP JSON serializer returned nothing');
  return new TextDecoder().decode(bytes);
}

/** `--header K=V` values (or another flag's) as a header map; a value without `=` is a SetupError naming it. */
export function parseHeaders(values: readonly string[], flag = '--header'): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const v of values) {
    const i = v.indexOf('=');
    if (i <= 0) throw new SetupError(`${flag} '${v}': expected NAME=VALUE, e.g. --header "Authorization=Basic <base64 of public:secret key>"`);
    headers[v.slice(0, i).trim()] = v.slice(i + 1).trim();
  }
  return headers;
}

/** An OTLP/HTTP endpoint URL, checked; anything but http(s) is a SetupError naming the flag. */
export function checkEndpoint(url: string, flag: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SetupError(`${flag} '${url}': not a URL; give the collector's traces URL, e.g. http://127.0.0.1:4318/v1/traces`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new SetupError(`${flag} '${url}': only http:// and https:// OTLP endpoints are supported`);
  return url;
}

/** Where and how to send spans. */
export interface OtlpTarget {
  /** The full traces URL (OTLP/HTTP, JSON), e.g. http://127.0.0.1:4318/v1/traces or Langfuse's /api/public/otel/v1/traces. */
  url: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}

/** One exporter per target; the official OTLP/HTTP exporter (JSON encoding). */
export function createOtlpExporter(target: OtlpTarget): OTLPTraceExporter {
  return new OTLPTraceExporter({ url: target.url, headers: target.headers, timeoutMillis: target.timeoutMs ?? 10_000 });
}

function exportOnce(exporter: OTLPTraceExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** Sends spans in requests of SPANS_PER_REQUEST; rejects with the collector's answer when one fails. */
export async function sendSpans(exporter: OTLPTraceExporter, spans: readonly ReadableSpan[], url: string): Promise<void> {
  for (let i = 0; i < spans.length; i += SPANS_PER_REQUEST) {
    const result = await exportOnce(exporter, spans.slice(i, i + SPANS_PER_REQUEST));
    if (result.code !== ExportResultCode.SUCCESS) throw new OtlpSendError(url, result.error);
  }
}

/** A collector refused or could not be reached. */
export class OtlpSendError extends Error {
  constructor(url: string, cause: Error | undefined) {
    super(`OTLP export to ${url} failed: ${cause?.message ?? 'unknown error'}`);
    this.name = 'OtlpSendError';
  }
}
