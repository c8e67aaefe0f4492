import { Decimal } from 'decimal.js';
import type { Analytics, RouteChoiceRow, RouteDecisionRow } from '../../runtime/analytics/index.ts';
import { chosenWithout } from '../../runtime/routing/decide-route.ts';
import type { PassSummary, ProtocolMetrics, Provenance, RoutedTurn, Tightness } from '../../schemas/types/report.ts';

type UnforcedTurn = ProtocolMetrics['unforced_turns'][number];
import { clusterTightness, countOutcomes, performanceGapRecovered, savingsVsMeasuredPct, slot4Metrics, solvedRate, strongCallShare } from '../metrics/index.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { A3_PASSES, HOLDOUT_PASS, PASS_D_NOT_RUN, RANDOM_PASS } from '../jobs/passes.ts';
import { savingsJson } from './savings-json.ts';
import { oracleMetrics, type OracleMetricsOptions } from '../metrics/oracle-block.ts';
import { mean, NOISY_STD, sampleStd } from '../metrics/stats.ts';

/** What cluster tightness is computed over: the patterns DB's fingerprints and a similarity without the workload partition. */
export interface FingerprintSource<T> {
  items: { workload: string | null; value: T }[];
  similarity(a: T, b: T): number;
}

function routedTurns(rows: readonly RouteDecisionRow[], records: readonly WorkloadRunRecord[]): RoutedTurn[] {
  const bySession = new Map(records.flatMap((r) => r.session_ids.map((s) => [s, r] as const)));
  const turnIndex = new Map<string, number>();
  return rows.map((row) => {
    const rec = bySession.get(row.session_id)!;
    const idx = turnIndex.get(row.session_id) ?? 0;
    turnIndex.set(row.session_id, idx + 1);
    const pattern = row.decision.chain.find((e) => e.policy === 'pattern');
    const winner = row.decision.chain[row.decision.winner_index];
    const without = chosenWithout(row.decision, 'pattern');
    return {
      workload: rec.workload,
      rep: rec.rep,
      turn_index: idx,
      turn_id: row.turn_id ?? '',
      chosen_model: row.decision.chosen_model,
      pattern_verdict: pattern?.verdict ?? 'not_applicable',
      inverted: winner?.policy === 'pattern' && without !== null && without !== row.decision.chosen_model,
      knn_scores: pattern?.pattern_alternatives ? pattern.pattern_alternatives.map((a) => ({ model: a.model, score: a.score, sample_size: a.sample_size })) : null,
      chain: row.decision.chain as unknown as RoutedTurn['chain'],
    };
  });
}

/** Turns of the forced passes that a slot other than manual sticky decided (e.g. a worker routed by its tier). */
function unforcedTurns(analytics: Analytics, records: readonly WorkloadRunRecord[]): UnforcedTurn[] {
  const forced = new Set(A3_PASSES.filter((p) => p.forced !== null).map((p) => p.name));
  const reps = records.filter((r) => forced.has(r.pass));
  // One read of the forced reps' decisions, dealt out to each rep's sessions (a rep's rows stay in id order):
  // a read per rep was a selection, a merge and a sort for each of a nightly run's ~120 forced reps.
  const repsOfSession = new Map<string, WorkloadRunRecord[]>();
  const rowsOfRep = new Map<WorkloadRunRecord, RouteChoiceRow[]>();
  for (const rec of reps) {
    rowsOfRep.set(rec, []);
    for (const s of new Set(rec.session_ids)) repsOfSession.set(s, [...(repsOfSession.get(s) ?? []), rec]);
  }
  for (const row of analytics.routeChoices({ sessions: reps.flatMap((r) => r.session_ids) })) for (const rec of repsOfSession.get(row.session_id) ?? []) rowsOfRep.get(rec)!.push(row);
  const out: UnforcedTurn[] = [];
  for (const [rec, rows] of rowsOfRep)
    for (const row of rows) {
      if (row.policy === 'manual_sticky') continue;
      out.push({ pass: rec.pass, workload: rec.workload, rep: rec.rep, session_id: row.session_id, turn_id: row.turn_id ?? '', policy: row.policy ?? 'none', chosen_model: row.chosen_model });
    }
  return out;
}

/** Pass R's block: the share it routed at (Pass C's) and the share its coins gave, or why it did not run. */
function passR(analytics: Analytics, sessions: readonly string[], target: number | null, strongModel: string, notRun: string | null): NonNullable<ProtocolMetrics['pass_r']> {
  if (sessions.length === 0) return { run: false, reason: notRun ?? 'Pass R has no reps in this DB (it runs after a complete Pass C, in one unsharded invocation)', strong_share_target: null, strong_share_measured: null };
  return { run: true, reason: null, strong_share_target: target, strong_share_measured: strongCallShare(analytics.routeChoices({ sessions: [...sessions] }), strongModel) };
}

/** The A3 protocol's section of the report (spec §8.2-§8.3), from the trace DB and the patterns DB. */
export function a3Metrics<T, U>(options: {
  analytics: Analytics;
  records: readonly WorkloadRunRecord[];
  baseline: string;
  cheapModel: string;
  strongModel: string;
  fingerprints: FingerprintSource<T> | null;
  /** The same fingerprints under v2 similarity, when the run used pattern store v2. */
  fingerprintsV2?: FingerprintSource<U> | null;
  /** Why Pass R did not run, when it did not (from provenance: --no-random-arm, a shard). */
  passRNotRun?: string | null;
  /** The oracle's ε and the simulator's truth (issue 13); without it the true oracle is reported unavailable. */
  oracle?: Pick<OracleMetricsOptions, 'epsilon' | 'truth'>;
}): ProtocolMetrics {
  const { analytics, records, baseline } = options;
  const sessionsOf = (pass: string) => records.filter((r) => r.pass === pass).flatMap((r) => r.session_ids);
  // Pass C's decisions feed its slot-4 figures, the per-workload ones and the routed turns: parsed once.
  const decided = new Map<string, RouteDecisionRow[]>();
  const decisionsOf = (pass: string) => decided.get(pass) ?? decided.set(pass, analytics.routeDecisions({ sessions: sessionsOf(pass) })).get(pass)!;
  const ran = (name: string) => records.some((r) => r.pass === name);
  // Passes A-C always report (an empty pass says so); D, C-oos and R only when they ran.
  const passes: PassSummary[] = [...A3_PASSES, HOLDOUT_PASS, RANDOM_PASS].filter((p) => (!p.delegationOnly && p !== HOLDOUT_PASS && p !== RANDOM_PASS) || ran(p.name)).map((p) => {
    const reps = records.filter((r) => r.pass === p.name);
    const sel = { sessions: sessionsOf(p.name) };
    const savings = analytics.savings(sel, baseline);
    const scores = reps.map((r) => r.score).filter((s): s is number => s !== null);
    const std = sampleStd(scores);
    return {
      pass: p.name,
      model: p.forced === 'cheap' ? options.cheapModel : p.forced === 'strong' ? options.strongModel : p === RANDOM_PASS ? 'random' : 'routed',
      description: p.description,
      savings: savingsJson(savings),
      actual_cost_usd: savings.actual_repriced_usd.toString(),
      quality_mean: mean(scores),
      quality_std: std,
      noisy: std !== null && std > NOISY_STD,
      workload_runs: reps.length,
      solved: reps.filter((r) => r.outcome === 'solved').length,
      solved_rate: solvedRate(reps.map((r) => r.outcome)),
      outcomes: countOutcomes(reps.map((r) => r.outcome)),
      // A forced pass has no routed turns (spec §8.3): slot 4 is consulted there but cannot win, and what it
      // would have said depends on the order the store was seeded in (one machine or shards), not on routing.
      // Pass R's chain has no slot 4 at all (its coin names every model).
      slot4: slot4Metrics(p.forced === null && p !== RANDOM_PASS ? decisionsOf(p.name).map((r) => r.decision) : []),
    };
  });
  const byName = (n: string) => passes.find((p) => p.pass === n)!;
  const routed = decisionsOf('C');
  const workloads = [...new Set(records.filter((r) => r.pass === 'C').map((r) => r.workload))].sort();
  const sessionsByWorkload = (w: string) => new Set(records.filter((r) => r.pass === 'C' && r.workload === w).flatMap((r) => r.session_ids));
  const pct = savingsVsMeasuredPct(new Decimal(byName('B').actual_cost_usd), new Decimal(byName('C').actual_cost_usd));
  let v1: Tightness | null = null;
  if (options.fingerprints) v1 = clusterTightness(options.fingerprints.items, options.fingerprints.similarity);
  const v2 = options.fingerprintsV2 ? clusterTightness(options.fingerprintsV2.items, options.fingerprintsV2.similarity) : null;
  return {
    protocol: 'a3',
    cheap_model: options.cheapModel,
    strong_model: options.strongModel,
    passes,
    pass_d: ran('D') ? { run: true, reason: null } : { run: false, reason: PASS_D_NOT_RUN },
    pass_r: passR(analytics, sessionsOf(RANDOM_PASS.name), strongCallShare(routed.map((r) => r.decision), options.strongModel), options.strongModel, options.passRNotRun ?? null),
    slot4: slot4Metrics(routed.map((r) => r.decision)),
    slot4_per_workload: workloads.map((w) => {
      const s = sessionsByWorkload(w);
      return { workload: w, slot4: slot4Metrics(routed.filter((r) => s.has(r.session_id)).map((r) => r.decision)) };
    }),
    cluster_tightness: { v1, v2 },
    savings_vs_measured_strong_pct: pct === null ? null : pct.toString(),
    // On solved rates: the gap recovered is the share of tasks the strong arm solved over the cheap one that routing also solved.
    performance_gap_recovered: performanceGapRecovered(byName('A').solved_rate, byName('B').solved_rate, byName('C').solved_rate),
    strong_call_rate: strongCallShare(routed.map((r) => r.decision), options.strongModel),
    unforced_turns: unforcedTurns(analytics, records),
    routed_turns: routedTurns(routed, records),
    oracle: oracleMetrics({ analytics, records, baseline, cheapModel: options.cheapModel, strongModel: options.strongModel, ...(options.oracle ?? { truth: { unavailable: 'no simulator truth was given' } }) }),
  };
}

/** What a protocol's report section is built from. */
export interface ReportSectionInput {
  analytics: Analytics;
  records: readonly WorkloadRunRecord[];
  provenance: Provenance;
  fingerprints: FingerprintSource<unknown> | null;
  fingerprintsV2: FingerprintSource<unknown> | null;
}
