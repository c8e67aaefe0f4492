/** A span as decoded from OTLP/JSON (the ExportTraceServiceRequest's resourceSpans[].scopeSpans[].spans[]). */
export interface OtlpJsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  events?: { name: string; timeUnixNano: string | number; attributes?: { key: string; value: Record<string, unknown> }[] }[];
  status?: { code?: number; message?: string };
}

/** An OTLP/JSON ExportTraceServiceRequest, as far as these helpers read it. */
export interface OtlpJsonRequest {
  resourceSpans: { resource?: { attributes?: unknown[]; schemaUrl?: string }; schemaUrl?: string; scopeSpans: { scope?: { name: string; version?: string }; schemaUrl?: string; spans: OtlpJsonSpan[] }[] }[];
}

/** Every span of a request, in file order. */
export function spansOf(request: OtlpJsonRequest): OtlpJsonSpan[] {
  return request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

/** An OTLP AnyValue as a plain JS value (intValue may be a string in JSON). */
export function anyValue(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  return undefined;
}

/** A span's attributes as a plain object. */
export function attributesOf(span: { attributes?: { key: string; value: Record<string, unknown> }[] }): Record<string, unknown> {
  return Object.fromEntries((span.attributes ?? []).map((a) => [a.key, anyValue(a.value)]));
}

const SHOWN = ['metis.pass', 'metis.rep', 'metis.outcome', 'gen_ai.request.model', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'metis.cost_usd', 'gen_ai.tool.name'];

/** The tree under `rootSpanId` as indented lines: name, a few key attributes, and its events. */
export function renderSpanTree(spans: readonly OtlpJsonSpan[], rootSpanId: string): string[] {
  const children = new Map<string, OtlpJsonSpan[]>();
  for (const s of spans) if (s.parentSpanId) children.set(s.parentSpanId, [...(children.get(s.parentSpanId) ?? []), s]);
  const lines: string[] = [];
  const walk = (s: OtlpJsonSpan, depth: number): void => {
    const a = attributesOf(s);
    const shown = SHOWN.filter((k) => a[k] !== undefined && !(k === 'gen_ai.request.model' && a['gen_ai.operation.name'] !== 'chat')).map((k) => `${k.replace(/^gen_ai\.usage\.|^gen_ai\.|^metis\./, '')}=${String(a[k])}`);
    const pad = '  '.repeat(depth);
    lines.push(`${pad}${s.name} [${s.spanId}]${shown.length ? ` ${shown.join(' ')}` : ''}${s.status?.code === 2 ? ` ERROR(${s.status.message ?? ''})` : ''}`);
    for (const e of s.events ?? []) {
      const ea = attributesOf(e);
      const detail = e.name === 'gen_ai.evaluation.result' ? `${String(ea['gen_ai.evaluation.name'])} score=${String(ea['gen_ai.evaluation.score.value'])} label=${String(ea['gen_ai.evaluation.score.label'])}` : e.name === 'metis.route.decided' ? `chose ${String(ea['metis.route.chosen_model'])} verdicts=${(ea['metis.route.verdicts'] as string[]).join(',')}` : '';
      lines.push(`${pad}  · ${e.name} ${detail}`.trimEnd());
    }
    for (const c of children.get(s.spanId) ?? []) walk(c, depth + 1);
  };
  const root = spans.find((s) => s.spanId === rootSpanId);
  if (root) walk(root, 0);
  return lines;
}
