// One session's figures summed from its pre-read event rows (EventRow: the payload fields come extracted by
// SQLite with analytics' own `->>` expressions), each the value the SQL of analytics.ts returns for that session:
// SUM skips NULLs and is NULL when every value is, and GROUP BY puts NULL before numbers before text.
import type { EventRow } from './event-rows.ts';

/** A `llm.call_completed` usage group of one session, in the shape of the usage query's row. */
export interface UsageRow {
  model: string | number | null;
  rows: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

/** SUM's step for the whole numbers a token field holds: numbers add, NULL is skipped, the sum stays NULL until a number comes. */
function add(sum: number | null, v: string | number | null): number | null {
  return typeof v === 'number' ? (sum ?? 0) + v : sum;
}

/** The session's completed calls grouped by model (the usage query's GROUP BY model). */
export function usageRowsOf(rows: readonly EventRow[]): UsageRow[] {
  const byModel = new Map<string | number | null, UsageRow>();
  for (const r of rows) {
    if (r.type !== 'llm.call_completed') continue;
    let g = byModel.get(r.model);
    if (!g) byModel.set(r.model, (g = { model: r.model, rows: 0, input_tokens: null, output_tokens: null, cached_input_tokens: null, cache_creation_input_tokens: null }));
    g.rows += 1;
    // Field by field, not a loop over their names: a report sums every call of the run this way, in code run once.
    g.input_tokens = add(g.input_tokens, r.input_tokens);
    g.output_tokens = add(g.output_tokens, r.output_tokens);
    g.cached_input_tokens = add(g.cached_input_tokens, r.cached_input_tokens);
    g.cache_creation_input_tokens = add(g.cache_creation_input_tokens, r.cache_creation_input_tokens);
  }
  return [...byModel.values()];
}

/** The recorded cost of each call a cache tier served (zero tokens, a cache tier set), in id order. */
export function servedCostsOf(rows: readonly EventRow[]): { cost: string | number | null }[] {
  return rows.filter((r) => r.type === 'llm.call_completed' && r.input_tokens === 0 && r.output_tokens === 0 && r.cache_tier !== null).map((r) => ({ cost: r.cost_usd }));
}

/** The session's event count per type. */
export function typeCountsOf(rows: readonly EventRow[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.type, (out.get(r.type) ?? 0) + 1);
  return out;
}

/** The session's `route.decided` rows, in id order, by rowid without their payloads (pre-read rows do not hold them: routeDecisions reads them). */
export function decisionRowsOf(rows: readonly EventRow[]): { id: string; session_id: string; turn_id: string | null; rowid: number | null; payload_json: null }[] {
  return rows.filter((r) => r.type === 'route.decided').map((r) => ({ id: r.id, session_id: r.session_id, turn_id: r.turn_id, rowid: r.rowid, payload_json: null }));
}

/** A decision's winning policy and chosen model, as the routing query reads them. */
export interface PolicyModel {
  policy: string | number | null;
  model: string | number | null;
}

/** Each `route.decided` row's winning slot (`chain[winner_index].policy`) and chosen model. */
export function policyModelsOf(rows: readonly EventRow[]): PolicyModel[] {
  return rows.filter((r) => r.type === 'route.decided').map((r) => ({ policy: r.policy, model: r.chosen_model }));
}

/** SQLite's order of GROUP BY keys: NULL, then numbers, then text (byte order; ids and names here are ASCII). */
export function sqlKeyOrder(a: string | number | null, b: string | number | null): number {
  const rank = (v: string | number | null) => (v === null ? 0 : typeof v === 'number' ? 1 : 2);
  const d = rank(a) - rank(b);
  if (d !== 0) return d;
  return a === b ? 0 : (a as string | number) < (b as string | number) ? -1 : 1;
}

/** The semantic cache's rows of a session: served calls, explored misses and each hit's tier and amounts, in id order. */
export interface SemanticRows {
  served: number;
  explored: number;
  hits: { tier: string | number | null; avoided_cost_usd: string | number | null; served_cost_usd: string | number | null }[];
}

/** The session's semantic-cache figures. */
export function semanticRowsOf(rows: readonly EventRow[]): SemanticRows {
  const out: SemanticRows = { served: 0, explored: 0, hits: [] };
  for (const r of rows) {
    if (r.type === 'llm.call_completed') {
      if (r.cache_tier !== null) out.served += 1;
    } else if (r.type === 'cache.miss') {
      if (r.explored === 1) out.explored += 1;
    } else if (r.type === 'cache.hit') {
      out.hits.push({ tier: r.tier, avoided_cost_usd: r.avoided_cost_usd, served_cost_usd: r.served_cost_usd });
    }
  }
  return out;
}
