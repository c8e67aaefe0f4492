import type { BenchReport } from '../../schemas/types/report.ts';
import type { CompareArtifact } from '../../schemas/types/compare.ts';
import { HOLDOUT_PASS } from '../jobs/passes.ts';
import { passUnits, routedTurnUnits } from './rep-samples.ts';

/**
 * Which routed pass a comparison judges routing on, and whether the two arms routed it identically
 * (issue 23 item 5). Out of sample (pass C-oos, each workload routed by a store seeded only from the other
 * workloads) when both reports ran it; in sample (pass C) otherwise, where every routed turn finds its own
 * seeded twin at similarity 1 under either arm, so two routing configurations often cannot differ at all.
 */
export type RoutingJudgement = NonNullable<CompareArtifact['routing']>;

/** The judgement for two A3 reports; null when either lacks a routed pass. */
export function routingJudgement(a: BenchReport, b: BenchReport): RoutingJudgement | null {
  if (!a.protocol_metrics || !b.protocol_metrics) return null;
  const has = (r: BenchReport, pass: string) => r.workloads.some((w) => w.pass === pass);
  const pass = has(a, HOLDOUT_PASS.name) && has(b, HOLDOUT_PASS.name) ? HOLDOUT_PASS.name : 'C';
  const sample = pass === HOLDOUT_PASS.name ? 'out_of_sample' : 'in_sample';
  const ua = passUnits(a, pass);
  const ub = passUnits(b, pass);
  const keys = [...ua.keys()].filter((k) => ub.has(k));
  if (keys.length === 0) return null;
  const same = keys.every((k) => {
    const x = ua.get(k)!.value;
    const y = ub.get(k)!.value;
    return x.actual === y.actual && x.solved === y.solved && x.score === y.score;
  });
  // In sample the report also holds each routed turn's model: the same model on every turn is the routing itself.
  const ta = routedTurnUnits(a);
  const tb = routedTurnUnits(b);
  const turnsSame = sample === 'out_of_sample' || [...ta.keys()].filter((k) => tb.has(k)).every((k) => ta.get(k)!.value.onStrong === tb.get(k)!.value.onStrong);
  const identical = same && turnsSame;
  const where =
    sample === 'out_of_sample'
      ? `out of sample (pass ${pass}: each workload routed by a store seeded only from the other workloads)`
      : `in sample (pass C: the reports hold no ${HOLDOUT_PASS.name}; each routed turn can match its own seeded twin at similarity 1, so routing there shows little of what an arm changes)`;
  const message = identical
    ? sample === 'out_of_sample'
      ? `The comparison cannot distinguish A and B here: on all ${keys.length} (workload, rep) units of pass ${pass}, judged out of sample, both arms spent the same and reached the same outcome, so what differs between them changed no routing decision on this suite. Every difference below is 0 by construction, not evidence that the arms are equal in general.`
      : `The comparison cannot distinguish A and B here: on all ${keys.length} (workload, rep) units of pass C both arms routed every turn to the same model, with the same cost and outcome. In sample each routed turn finds its own seeded twin at similarity 1 under either arm, so routing is the same whatever the arms change; run the comparison out of sample (--holdout workload, the default for v1 v2 and --arm).`
    : `Routing judged ${where}, on ${keys.length} (workload, rep) units.`;
  return { pass, sample, units: keys.length, identical, message };
}
