import type { Provenance } from '../../schemas/types/report.ts';
import type { ProtocolName } from '../jobs/passes.ts';
import { DEFAULT_ORACLE_EPSILON } from '../metrics/oracle.ts';
import { simTruthFor } from '../metrics/oracle-truth-source.ts';
import type { SectionOf } from '../report/build-report.ts';
import { a3Metrics, type ReportSectionInput } from '../report/protocol-metrics.ts';

// Each protocol's report section without its run code (runner, sandbox, tools, evaluator): a reader that rebuilds
// a report from the DB (analyze, view) loads only this; the protocols themselves use the same functions.

/** Why a run's provenance kept Pass R out (--no-random-arm, a shard), or null when it did not. */
export function randomArmNotRun(p: Pick<Provenance, 'random_arm' | 'shard'>): string | null {
  if (p.random_arm === false) return '--no-random-arm: the random router was not run; the headline compares with the A/B interpolation';
  if (p.shard) return 'a sharded run: Pass R copies the share of the whole Pass C, which no shard holds; the headline compares with the A/B interpolation';
  return null;
}

/** A3's section: its oracle, capture, tightness and Pass R figures. */
export function a3ReportSection({ analytics, records, provenance, fingerprints, fingerprintsV2 }: ReportSectionInput): ReturnType<typeof a3Metrics> {
  return a3Metrics({
    analytics,
    records,
    baseline: provenance.baseline_model,
    cheapModel: provenance.actual_model,
    strongModel: provenance.strong_model ?? provenance.baseline_model,
    fingerprints,
    fingerprintsV2,
    passRNotRun: randomArmNotRun(provenance),
    oracle: { epsilon: provenance.oracle_epsilon ?? DEFAULT_ORACLE_EPSILON, truth: simTruthFor(provenance) },
  });
}

/** The report section of each protocol by name (single and signal have none), as protocolFor's protocols build it. */
export const sectionFor: SectionOf = (name: ProtocolName) => (name === 'a3' ? { reportSection: a3ReportSection } : { reportSection: () => null });
