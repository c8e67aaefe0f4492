// One valid payload per catalog type, typed by the generated interfaces so the compiler and the
// JSON Schemas must agree; tests mutate these to build invalid payloads.
import type { Actor, EventDraft, EventPayloads, KnownEventType } from '../index.ts';

const HASH = 'a'.repeat(64);

/** A valid payload for every catalog type. */
export const samplePayloads: { [K in KnownEventType]: EventPayloads[K] } = {
  'session.created': { workspace_path: '/tmp/ws', workspace_hash: HASH, initial_active_model: null, routing_policy_version: HASH },
  'session.ended': { disposition: 'completed', turn_count: 2, total_cost_usd: '0.012345', duration_seconds: 3.5 },
  'turn.started': { user_message_hash: HASH, user_message_text_redacted: null, estimated_input_tokens: 120, has_images: false, has_tool_calls_in_history: true },
  'turn.completed': {
    stop_reason: 'end_turn',
    llm_call_count: 2,
    tool_call_count: 1,
    total_input_tokens: 1500,
    total_output_tokens: 200,
    total_cost_usd: '0.0042',
    wall_time_seconds: 1.25,
  },
  'llm.call_started': { model: 'anthropic:claude-haiku-4-5', provider: 'sim', estimated_input_tokens: 900, request_id: 'req_1', is_worker: false },
  'llm.call_completed': {
    model: 'anthropic:claude-haiku-4-5',
    provider: 'sim',
    input_tokens: 900,
    output_tokens: 80,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 1024,
    cost_usd: '0.00231',
    pricing_version: '2026-05-01',
    latency_ms: 840,
    stop_reason: 'tool_use',
    produced_tool_calls: 1,
    produced_thinking_blocks: 0,
  },
  'llm.call_failed': { model: 'openai:gpt-5', provider: 'openai', error_class: 'rate_limit', error_message_redacted: 'slow down', retry_count: 3, latency_ms: 12000 },
  'tool.called': { tool_use_id: 'tu_01', tool_name: 'read_file', input_hash: HASH, input_size_bytes: 42, side_effects: 'read' },
  'tool.completed': { tool_use_id: 'tu_01', success: true, output_size_bytes: 512, latency_ms: 3, files_modified: null, command_executed: null },
  'tool.failed': { tool_use_id: 'tu_01', error_class: 'not_found', error_message: 'no such file: a.txt', latency_ms: 1 },
  'tool.input_invalid': { tool_name: 'edit_file', validation_errors: ['(root): must have required property \'path\''] },
  'route.decided': {
    chosen_model: 'anthropic:claude-haiku-4-5',
    winner_index: 1,
    elapsed_ms: 0.42,
    chain: [
      { policy: 'rule', verdict: 'not_applicable', candidate_model: null, reason: 'no rule matched', rule_name: null, confidence: null, pattern_alternatives: null, validation_failure: null },
      {
        policy: 'pattern',
        verdict: 'chose',
        candidate_model: 'anthropic:claude-haiku-4-5',
        reason: 'k-nn',
        rule_name: null,
        confidence: 0.8,
        pattern_alternatives: [{ model: 'anthropic:claude-sonnet-4-6', score: 0.7, sample_size: 6 }],
        validation_failure: null,
      },
    ],
  },
  'routing.policy_invalid': { policy_path: '/ws/.metis/routing.yaml', errors: ['/rules/0: unknown key'], using_last_known_good: true },
  'eval.started': { eval_id: 'ev_1', subject_kind: 'workload', subject_id: 'run_1', rubric_id: 'heuristic', rubric_version: '1', judge_kind_planned: 'heuristic', trigger: 'benchmark' },
  'eval.completed': {
    eval_id: 'ev_1',
    subject_kind: 'workload',
    subject_id: 'run_1',
    score: 0.75,
    confidence: 0.9,
    judge_kind: 'heuristic',
    judge_model: null,
    judge_cost_usd: '0',
    judge_pricing_version: null,
    judge_latency_ms: 0,
    rubric_id: 'heuristic',
    rubric_version: '1',
    signals: { check: 1 },
    parent_eval_id: null,
  },
  'eval.failed': { eval_id: 'ev_1', subject_kind: 'turn', subject_id: 'turn_1', failure_mode: 'judge_output_invalid', error_message: 'not JSON', judge_latency_ms: 300 },
  'delegate.started': {
    tool_use_id: 'tu_1',
    worker_session_id: 'sess_w',
    tier: 'fast',
    resolved_model: 'anthropic:claude-haiku-4-5',
    context_mode: 'minimal',
    context_reference_count: 0,
    task_size_tokens: 40,
    allowed_tool_count: 2,
    dropped_tools: [],
  },
  'delegate.completed': {
    tool_use_id: 'tu_1',
    worker_session_id: 'sess_w',
    success: true,
    output_size_bytes: 120,
    worker_total_cost_usd: '0.0012',
    pricing_version: '2026-05-01',
    turn_count: 1,
    llm_call_count: 2,
    tool_call_count: 1,
    wall_time_seconds: 0.4,
    model: 'anthropic:claude-haiku-4-5',
  },
  'delegate.failed': { tool_use_id: 'tu_1', worker_session_id: null, failure_mode: 'no_model_available_for_tier', error_message: 'no model', worker_total_cost_usd: '0', pricing_version: '2026-05-01' },
  'pattern.recorded': {
    fingerprint_id: '01JZ0000000000000000000000',
    fingerprint_kind: 'structural',
    primary_model: 'anthropic:claude-haiku-4-5',
    sample_size_before: 3,
    sample_size_after: 4,
    was_new_fingerprint: false,
    success_score: null,
    cost_usd_at_record: '0.00231',
    pricing_version: '2026-05-01',
    over_soft_cap: false,
  },
  'pattern.matched': { fingerprint_id: '01JZ0000000000000000000000', fingerprint_kind: 'structural', chosen_model: 'anthropic:claude-sonnet-4-6', confidence: 0.31, sample_size: 12, k_cluster_size: 10, alternatives_count: 2, neighbors: [{ fingerprint_id: '01JZ0000000000000000000000', primary_model: 'anthropic:claude-sonnet-4-6', similarity: 0.9731, sample_size: 12, success_score_mean: 0.85 }] },
  'pattern.evicted': { trigger: 'hard_cap_evict', fingerprints_before: 3001, fingerprints_after: 3000, outcomes_before: 10001, outcomes_after: 10000, entries_evicted: 1, oldest_evicted_age_days: 12.5 },
  'skill.loaded': { skill_id: 'pdf-processing', skill_version: '1.2.0', load_reason: 'on_demand', load_size_tokens: 1800, source: 'workspace', triggered_by_tool_use_id: 'tu_01' },
  'cache.hit': { tier: 'semantic', entry_id: '01JZ0000000000000000000001', similarity: 0.97, error_bound: 0.008, lookup_us: 310, embed_us: 250, avoided_cost_usd: '0.0021', served_cost_usd: '0' },
  'cache.miss': { tier: 'semantic', reason: 'gate_numbers', similarity: 0.95, error_bound: null, explored: false, explore_agreed: null, lookup_us: 280, embed_us: 240 },
  'cache.set': { tier: 'exact', entry_id: '01JZ0000000000000000000002', task_type: 'faq', cost_usd: '0.0021', entries_after: 12 },
  'cache.evicted': { tier: 'semantic', entry_id: '01JZ0000000000000000000003', policy: 'lru_cost', age_us: 86400000000, hits: 3, entries_after: 9999 },
};

/** A payload typed both precisely and as a plain record, so emitted events are also plain `BusEvent`s. */
export type SamplePayload<K extends KnownEventType> = EventPayloads[K] & Record<string, unknown>;

/** A draft of `type` with its sample payload (deep-copied) and the given envelope fields. */
export function sampleDraft<K extends KnownEventType>(
  type: K,
  envelope: { session_id?: string; actor?: Actor; turn_id?: string | null; parent_event_id?: string | null } = {},
): EventDraft<SamplePayload<K>> {
  return {
    session_id: envelope.session_id ?? 'sess_1',
    turn_id: envelope.turn_id ?? null,
    parent_event_id: envelope.parent_event_id ?? null,
    type,
    actor: envelope.actor ?? 'system',
    payload: structuredClone(samplePayloads[type]) as SamplePayload<K>,
  };
}
