import type { Analytics, SavingsResult, SemanticCacheSummary } from '../../runtime/analytics/index.ts';
import { sumSavings } from '../../runtime/analytics/index.ts';
import type { BenchReport, Provenance, Rep, SemanticCache, WorkloadResult } from '../../schemas/types/report.ts';
import { countOutcomes, passAtK, passHatK, solvedRate } from '../metrics/index.ts';
import { HOLDOUT_PASS, passesOf, type ProtocolName } from '../jobs/passes.ts';
import type { RunStore, WorkloadRunRecord } from '../runs/run-store.ts';
import { buildHeadline } from './headline.ts';
import type { FingerprintSource, ReportSectionInput } from './protocol-metrics.ts';
import { savingsJson } from './savings-json.ts';
import { mean, NOISY_STD, sampleStd } from '../metrics/stats.ts';
import { compareText } from '../../runtime/core/compare-text.ts';

export { savingsJson } from './savings-json.ts';

/** The one-line banner every rendering of a simulated run carries (spec §3). */
export const SIM_BANNER =
  'SIMULATED PROVIDER: these numbers come from the built-in emulator (sim), not from a real model. Do not quote them as real-model results.';


/**
 * A protocol's report section by the protocol's name: protocols/protocols.ts's protocolFor, passed in by the
 * caller, since the report sits below the protocols (docs/architecture.md, Floors).
 */
export type SectionOf = (protocol: ProtocolName) => { reportSection(input: ReportSectionInput): BenchReport['protocol_metrics'] };

/**
 * Builds the whole report of a run from the trace DB alone (workload_runs + events), so a finished
 * run and `analyze --skip-execute` on its DB print the same numbers by construction.
 */
export function buildReport<T = unknown, U = unknown>(options: {
  runs: RunStore;
  analytics: Analytics;
  runId: string;
  /** The protocol's own section (A3's oracle, capture, tightness...; none for single and signal). */
  sectionOf: SectionOf;
  /** The run's records (RunStore.workloadRuns), when the caller read them already (reportFromDb, as it checked them). */
  records?: WorkloadRunRecord[];
  /** The run's pattern store fingerprints, for cluster tightness (A3); null when there is no patterns DB. */
  fingerprints?: FingerprintSource<T> | null;
  /** The same fingerprints under v2 similarity (pattern store v2 runs only). */
  fingerprintsV2?: FingerprintSource<U> | null;
  /** Overrides the stored provenance (e.g. a fresh ended_at); defaults to what the DB holds. */
  provenance?: Provenance;
  status?: BenchReport['status'];
  warnings?: string[];
}): BenchReport {
  const { runs, analytics, runId } = options;
  const provenance = options.provenance ?? runs.provenance(runId);
  if (!provenance) throw new Error(`run ${runId} is not in this trace DB`);
  const baseline = provenance.baseline_model;
  const records = options.records ?? runs.workloadRuns(runId);

  // Passes in protocol order, workloads by name within a pass.
  const passOrder = [...passesOf(provenance.protocol).map((p) => p.name), HOLDOUT_PASS.name];
  const sorted = [...records].sort((a, b) => passOrder.indexOf(a.pass) - passOrder.indexOf(b.pass) || compareText(a.workload, b.workload) || a.rep - b.rep);
  const groups = new Map<string, WorkloadRunRecord[]>();
  for (const r of sorted) {
    const key = `${r.pass}\u0000${r.workload}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }

  // The per-rep figures below ask for each rep's sessions; reading the whole run's rows once is cheaper.
  analytics.prefetch(records.flatMap((r) => r.session_ids));
  const perWorkload: { result: WorkloadResult; savings: SavingsResult }[] = [];
  for (const reps of groups.values()) {
    const first = reps[0]!;
    const repJson: Rep[] = reps.map((r) => {
      const sel = { sessions: r.session_ids };
      const counts = analytics.usageCounts(sel);
      return {
        rep: r.rep,
        session_ids: r.session_ids,
        model: r.model,
        started_at_us: r.started_at_us,
        ended_at_us: r.ended_at_us,
        turns: counts.turns,
        llm_calls: counts.llm_calls,
        // Calls the model asked for: dispatched ones plus those refused for invalid input.
        tool_calls: counts.tool_calls + counts.tool_inputs_invalid,
        failed_tool_calls: counts.tool_calls_failed + counts.tool_inputs_invalid,
        hard_failures: counts.llm_calls_failed,
        score: r.score,
        confidence: r.confidence,
        outcome: r.outcome,
        solved: r.outcome === 'solved',
        check: r.check,
        assertions: r.assertions,
        error: r.error,
        error_class: r.error_class ?? null,
        // As text from the rep's exact sums: no Decimal is made for a figure only written.
        savings: analytics.savingsText(sel, baseline),
      };
    });
    const savings = analytics.savings({ sessions: reps.flatMap((r) => r.session_ids) }, baseline);
    const scores = reps.map((r) => r.score).filter((s): s is number => s !== null);
    const std = sampleStd(scores);
    // pass@k / pass^k count solved reps (the check's verdict), out of every rep: one that never reached its check failed.
    const outcomes = reps.map((r) => r.outcome);
    const solved = outcomes.filter((o) => o === 'solved').length;
    const k = reps.length;
    const models = [...new Set(reps.map((r) => r.model))];
    perWorkload.push({
      savings,
      result: {
        workload: first.workload,
        pass: first.pass,
        model: models.length === 1 && first.pass !== 'C' && first.pass !== HOLDOUT_PASS.name ? models[0]! : 'routed',
        signal_strength: first.signal_strength,
        reps: repJson,
        turns: repJson.reduce((a, r) => a + r.turns, 0),
        llm_calls: repJson.reduce((a, r) => a + r.llm_calls, 0),
        tool_calls: repJson.reduce((a, r) => a + r.tool_calls, 0),
        savings: savingsJson(savings),
        quality_mean: mean(scores),
        quality_std: std,
        noisy: std !== null && std > NOISY_STD,
        assertions_failed: reps.reduce((a, r) => a + r.assertions.filter((x) => !x.passed).length, 0),
        solved,
        solved_rate: solvedRate(outcomes),
        outcomes: countOutcomes(outcomes),
        k,
        pass_at_k: k ? passAtK(k, solved, k) : null,
        pass_hat_k: k ? passHatK(k, solved, k) : null,
      },
    });
  }

  const pricing = provenance.pricing_version;
  const aggregate = sumSavings(perWorkload.map((w) => w.savings), baseline, pricing);
  const successful = records.filter((r) => r.outcome === 'solved');
  const successfulSavings = analytics.savings({ sessions: successful.flatMap((r) => r.session_ids) }, baseline);
  const allSessions = { sessions: records.flatMap((r) => r.session_ids) };
  const routing = analytics.routing(allSessions);
  const cache = analytics.cacheEffectiveness(allSessions);
  const semantic = analytics.semanticCache(allSessions);
  const assertionsFailed = perWorkload.reduce((a, w) => a + w.result.assertions_failed, 0);
  const status = options.status ?? runs.status(runId);
  const scores = records.map((r) => r.score).filter((s): s is number => s !== null);

  const workloads = perWorkload.map((w) => w.result);
  // The protocol's own section (A3's oracle, capture, tightness...; none for single and signal).
  const protocolMetrics = options.sectionOf(provenance.protocol).reportSection({ analytics, records, provenance, fingerprints: options.fingerprints ?? null, fingerprintsV2: options.fingerprintsV2 ?? null });
  return {
    report_version: 1,
    status,
    exit_code: assertionsFailed > 0 || status !== 'complete' || runs.recordingErrors(runId).length > 0 ? 1 : 0,
    // Direct or through a cassette recorded from it: either way the numbers are the emulator's.
    banner: /(^|[:+])sim($|\+)/.test(provenance.actual_provider) ? SIM_BANNER : null,
    provenance,
    workloads,
    headline: buildHeadline({ provenance, workloads, protocol_metrics: protocolMetrics }),
    aggregate: {
      savings: savingsJson(aggregate),
      savings_on_successful_work: savingsJson(successfulSavings),
      quality_mean: mean(scores),
      workload_runs: records.length,
      successful_runs: successful.length,
      solved_runs: successful.length,
      solved_rate: solvedRate(records.map((r) => r.outcome)),
      outcomes: countOutcomes(records.map((r) => r.outcome)),
    },
    routing: { decisions_by_policy: routing.by_policy, hard_failures: routing.hard_failures },
    cache: { hit_rate: cache.hit_rate, cache_write_share: cache.cache_write_share, ...semanticCacheJson(semantic) },
    assertions_failed: assertionsFailed,
    warnings: options.warnings ?? runs.warnings(runId),
    protocol_metrics: protocolMetrics,
    recording_path_errors: runs.recordingErrors(runId),
  };
}

/** The report's semantic-cache figures; none when the trace holds no cache event (the cache was off). */
function semanticCacheJson(s: SemanticCacheSummary): { semantic?: SemanticCache } {
  const events = s.hits.exact + s.hits.semantic + s.hits.intermediate + s.misses + s.sets + s.evictions;
  if (events === 0) return {};
  return {
    semantic: {
      llm_calls: s.llm_calls,
      served_calls: s.served_calls,
      hits_exact: s.hits.exact,
      hits_semantic: s.hits.semantic,
      hits_intermediate: s.hits.intermediate,
      misses: s.misses,
      explored: s.explored,
      sets: s.sets,
      evictions: s.evictions,
      avoided_cost_usd: s.avoided_cost_usd.toFixed(),
      served_cost_usd: s.served_cost_usd.toFixed(),
    },
  };
}
