import { Decimal } from 'decimal.js';
import { isoFromUs } from '../../../runtime/core/clock.ts';
import type { BusEvent } from '../../../runtime/events/index.ts';
import type { Message } from '../../../runtime/types/content.ts';
import type { RepTrace, RunTrace } from '../run-trace.ts';

/** What goes into the logs besides structure and numbers. */
export interface InspectOptions {
  /** Messages, tool arguments and results, check output (catalog `private`): only when asked. */
  includeContent: boolean;
  packageVersion: string;
}

/** Inspect's ModelUsage; `input_tokens` is the uncached input, as Inspect's Anthropic provider records it. */
export interface InspectUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_cache_read: number;
  input_tokens_cache_write: number;
  total_cost: number;
}

type Json = Record<string, unknown>;

/** Stands in for private content in a log written without --include-content. */
export const REDACTED = '[private: not exported; rerun bench export with --include-content]';

/** Canonical stop reasons as Inspect's (ChatCompletionChoice.stop_reason enum). */
const STOP_REASON: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'max_tokens', tool_use: 'tool_calls' };

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** `anthropic:claude-haiku-4-5` → Inspect's `anthropic/claude-haiku-4-5`. */
const inspectModel = (id: string): string => id.replace(':', '/');

function emptyUsage(): InspectUsage {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0, input_tokens_cache_read: 0, input_tokens_cache_write: 0, total_cost: 0 };
}

/** Usage of one llm.call_completed payload in Inspect's shape; cost exact as a Decimal beside it. */
function usageOf(p: Record<string, unknown>): { usage: InspectUsage; cost: Decimal } {
  const cost = new Decimal(str(p.cost_usd) || 0);
  const [i, o, r, w] = [num(p.input_tokens), num(p.output_tokens), num(p.cached_input_tokens), num(p.cache_creation_input_tokens)];
  return { usage: { input_tokens: i, output_tokens: o, input_tokens_cache_read: r, input_tokens_cache_write: w, total_tokens: i + o + r + w, total_cost: cost.toNumber() }, cost };
}

/** Adds usage into a per-model map; costs are summed as Decimals and only turned into Inspect's float at the end. */
class UsageSum {
  private readonly byModel = new Map<string, { usage: InspectUsage; cost: Decimal }>();
  add(model: string, u: InspectUsage, cost: Decimal): void {
    const cur = this.byModel.get(model) ?? { usage: emptyUsage(), cost: new Decimal(0) };
    for (const k of ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_cache_read', 'input_tokens_cache_write'] as const) cur.usage[k] += u[k];
    cur.cost = cur.cost.plus(cost);
    this.byModel.set(model, cur);
  }
  merge(other: UsageSum): void {
    for (const [m, v] of other.byModel) this.add(m, v.usage, v.cost);
  }
  toJson(): Record<string, InspectUsage> {
    return Object.fromEntries([...this.byModel].map(([m, v]) => [m, { ...v.usage, total_cost: v.cost.toNumber() }]));
  }
  costUsd(): Decimal {
    return [...this.byModel.values()].reduce((a, v) => a.plus(v.cost), new Decimal(0));
  }
}

/** One canonical message as Inspect chat messages (a user message of tool results becomes one tool message each). */
function chatMessages(m: Message, model: string | null, toolNames: Map<string, string>, includeContent: boolean): Json[] {
  const text = (t: string) => (includeContent ? t : REDACTED);
  if (m.role === 'assistant') {
    const calls = m.content.filter((b) => b.type === 'tool_use');
    for (const c of calls) toolNames.set(c.id, c.name);
    return [
      {
        role: 'assistant',
        content: text(m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')),
        ...(model ? { model } : {}),
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, function: c.name, arguments: includeContent ? c.input : {}, type: 'function' })) } : {}),
      },
    ];
  }
  const results = m.content.filter((b) => b.type === 'tool_result');
  if (results.length > 0 && results.length === m.content.length) {
    return results.map((r) => ({
      role: 'tool',
      content: text(r.content),
      tool_call_id: r.tool_use_id,
      function: toolNames.get(r.tool_use_id) ?? null,
      ...(r.is_error ? { error: { type: 'unknown', message: text(r.content) } } : {}),
    }));
  }
  return [{ role: 'user', content: text(m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')) }];
}

/** The routing decision of each turn of the main session: chosen model and each slot's verdict. */
function routingOf(events: readonly BusEvent[], mainSession: string): Json[] {
  return events
    .filter((e) => e.type === 'route.decided' && e.session_id === mainSession)
    .map((e, i) => {
      const chain = Array.isArray(e.payload.chain) ? (e.payload.chain as Record<string, unknown>[]) : [];
      const winner = chain[num(e.payload.winner_index)];
      return { turn: i, chosen_model: str(e.payload.chosen_model), decided_by: str(winner?.policy), chain: chain.map((c) => ({ policy: str(c.policy), verdict: str(c.verdict), candidate_model: c.candidate_model ?? null })) };
    });
}

/** One rep as an Inspect sample: the workload is the sample, the rep its epoch (1-based). */
export function inspectSample(rep: RepTrace, opts: InspectOptions): { sample: Json; usage: UsageSum } {
  const r = rep.record;
  const main = r.session_ids[0] ?? '';
  const transcript = rep.transcripts.get(main) ?? [];
  const toolNames = new Map<string, string>();
  const model = inspectModel(r.model);
  const messages = transcript.flatMap((m) => chatMessages(m, m.role === 'assistant' ? model : null, toolNames, opts.includeContent));
  const firstUser = transcript.find((m) => m.role === 'user');
  const input = firstUser ? (opts.includeContent ? firstUser.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : REDACTED) : '';
  const assistants = transcript.filter((m) => m.role === 'assistant');
  const usage = new UsageSum();
  const events: Json[] = [];
  const started = new Map<string, BusEvent>();
  // Per session, the i-th completed call produced the i-th assistant message of that session's transcript.
  const perSession = new Map<string, number>();
  for (const e of rep.events) {
    if (e.type === 'llm.call_started') started.set(e.id, e);
    if (e.type !== 'llm.call_completed') continue;
    const { usage: u, cost } = usageOf(e.payload);
    const m = inspectModel(str(e.payload.model));
    usage.add(m, u, cost);
    const k = perSession.get(e.session_id) ?? 0;
    perSession.set(e.session_id, k + 1);
    const said = e.session_id === main ? assistants[k] : (rep.transcripts.get(e.session_id) ?? []).filter((x) => x.role === 'assistant')[k];
    const message = said ? chatMessages(said, m, new Map(), opts.includeContent)[0]! : { role: 'assistant', content: '', model: m };
    const begin = (e.parent_event_id && started.get(e.parent_event_id)) || e;
    events.push({
      event: 'model',
      timestamp: isoFromUs(begin.timestamp_us),
      completed: isoFromUs(e.timestamp_us),
      working_start: Math.max(0, (begin.timestamp_us - r.started_at_us) / 1e6),
      working_time: num(e.payload.latency_ms) / 1000,
      model: m,
      role: e.session_id === main ? null : 'worker',
      input: [],
      tools: [],
      tool_choice: 'auto',
      config: {},
      cache: typeof e.payload.cache_tier === 'string' ? 'read' : null,
      output: { model: m, choices: [{ message, stop_reason: STOP_REASON[str(e.payload.stop_reason)] ?? 'unknown' }], completion: typeof message.content === 'string' ? message.content : '', usage: u },
      metadata: { session_id: e.session_id, turn_id: e.turn_id, cost_usd: cost.toString(), provider: str(e.payload.provider) },
    });
  }
  const last = assistants.at(-1);
  const lastMessage = last ? chatMessages(last, model, new Map(), opts.includeContent)[0]! : { role: 'assistant', content: '', model };
  const scores: Json = {};
  if (r.check) {
    scores.hidden_check = {
      value: r.check.passed ? 1 : 0,
      answer: r.check.timed_out ? 'timed_out' : r.check.passed ? 'pass' : 'fail',
      explanation: opts.includeContent ? r.check.output_tail : null,
      metadata: { exit_code: r.check.exit_code, sandbox: r.check.sandbox ?? null },
      history: [],
    };
  }
  scores.gated_score = { value: r.score ?? 0, answer: r.outcome, explanation: null, metadata: { confidence: r.confidence, outcome: r.outcome }, history: [] };
  const scoreTime = isoFromUs(r.ended_at_us);
  for (const [name, score] of Object.entries(scores)) events.push({ event: 'score', timestamp: scoreTime, working_start: (r.ended_at_us - r.started_at_us) / 1e6, score, scorer: name, intermediate: false });
  const sample: Json = {
    id: r.workload,
    epoch: r.rep + 1,
    input,
    target: '',
    messages,
    output: { model, choices: last ? [{ message: lastMessage, stop_reason: 'stop' }] : [], completion: typeof lastMessage.content === 'string' ? lastMessage.content : '', usage: totalOf(usage) },
    scores,
    metadata: {
      workload: r.workload,
      pass: r.pass,
      rep: r.rep,
      outcome: r.outcome,
      model: r.model,
      signal_strength: r.signal_strength,
      session_ids: r.session_ids,
      error_class: r.error_class ?? null,
      cost_usd: usage.costUsd().toString(),
      routing: routingOf(rep.events, main),
    },
    store: {},
    events,
    model_usage: usage.toJson(),
    role_usage: {},
    attachments: {},
    started_at: isoFromUs(r.started_at_us),
    completed_at: isoFromUs(r.ended_at_us),
    total_time: Math.max(0, (r.ended_at_us - r.started_at_us) / 1e6),
    turn_count: r.turns,
    ...(r.error ? { error: { message: r.error_class ?? 'error', traceback: opts.includeContent ? r.error : '', traceback_ansi: '' } } : {}),
  };
  return { sample, usage };
}

/** All models' usage as one ModelUsage. */
function totalOf(sum: UsageSum): InspectUsage {
  const total = emptyUsage();
  for (const u of Object.values(sum.toJson())) for (const k of Object.keys(total) as (keyof InspectUsage)[]) total[k] += u[k];
  total.total_cost = sum.costUsd().toNumber();
  return total;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The passes of a run in the order they ran (first rep of each). */
export function passesOf(run: RunTrace): string[] {
  return [...new Set([...run.reps].sort((a, b) => a.record.started_at_us - b.record.started_at_us).map((r) => r.record.pass))];
}

/**
 * One Inspect eval log for one (run, pass): dataset = the workloads, epochs = the reps, the hidden check
 * as the main score (first in `results.scores`), then the gated score. Pure.
 */
export function inspectEvalLog(run: RunTrace, pass: string, opts: InspectOptions): Json {
  const reps = run.reps.filter((r) => r.record.pass === pass);
  const p = run.provenance;
  const built = reps.map((r) => inspectSample(r, opts));
  const usage = new UsageSum();
  for (const b of built) usage.merge(b.usage);
  const models = [...new Set(reps.map((r) => r.record.model))];
  const checked = reps.filter((r) => r.record.check);
  const scores: Json[] = [];
  if (checked.length) {
    scores.push({ name: 'hidden_check', scorer: 'hidden_check', params: {}, scored_samples: checked.length, unscored_samples: reps.length - checked.length, metrics: { accuracy: { name: 'accuracy', value: mean(checked.map((r) => (r.record.check!.passed ? 1 : 0))), params: {} } } });
  }
  const gated = reps.map((r) => r.record.score ?? 0);
  scores.push({
    name: 'gated_score',
    scorer: 'gated_score',
    params: {},
    scored_samples: reps.length,
    unscored_samples: 0,
    metrics: { mean: { name: 'mean', value: mean(gated), params: {} }, solved_rate: { name: 'solved_rate', value: mean(reps.map((r) => (r.record.outcome === 'solved' ? 1 : 0))), params: {} } },
  });
  const startUs = Math.min(run.createdAtUs, ...reps.map((r) => r.record.started_at_us));
  const endUs = Math.max(startUs, ...reps.map((r) => r.record.ended_at_us));
  const workloads = [...new Set(reps.map((r) => r.record.workload))];
  return {
    version: 2,
    status: 'success',
    eval: {
      eval_id: `${run.runId}:${pass}`,
      run_id: run.runId,
      created: isoFromUs(startUs),
      task: `metis-bench/${pass}`,
      task_id: `${run.runId}:${pass}`,
      task_version: p?.suite_version ?? 1,
      task_attribs: {},
      task_args: {},
      task_args_passed: {},
      dataset: { name: 'metis-bench workloads', location: p?.workloads_dir ?? null, samples: workloads.length, sample_ids: workloads, shuffled: false },
      model: models.length === 1 ? inspectModel(models[0]!) : 'metis/routed',
      model_generate_config: { temperature: p?.temperature ?? 0 },
      model_args: {},
      config: { epochs: p?.seed_passes ?? 1 },
      packages: { 'metis-bench': opts.packageVersion },
      ...(p?.metis_commit_sha ? { revision: { type: 'git', origin: p.metis_branch ?? '', commit: p.metis_commit_sha, dirty: p.metis_dirty ?? null } } : {}),
      metadata: { protocol: p?.protocol ?? null, pass, simulated: p ? p.actual_provider === 'sim' : null, actual_model: p?.actual_model ?? null, baseline_model: p?.baseline_model ?? null, pricing_version: p?.pricing_version ?? null, seed: p?.seed ?? null },
    },
    plan: { name: 'plan', steps: [], config: {} },
    results: { total_samples: reps.length, completed_samples: reps.filter((r) => r.record.outcome !== 'not_reached').length, scores },
    stats: { started_at: isoFromUs(startUs), completed_at: isoFromUs(endUs), model_usage: usage.toJson(), role_usage: {}, connection_limit_history: [] },
    samples: built.map((b) => b.sample),
    invalidated: false,
    tags: ['metis-bench', pass],
    metadata: { metis_run_id: run.runId, pass, cost_usd: usage.costUsd().toString(), content_included: opts.includeContent },
  };
}
