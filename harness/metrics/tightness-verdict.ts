import { Decimal } from 'decimal.js';
import type { TightnessPair, TightnessVerdict } from '../../schemas/types/compare.ts';
import type { BenchReport, Tightness } from '../../schemas/types/report.ts';

/** pattern-store.md §16.10 test 5: v2 must raise same-workload similarity by this much... */
export const REQUIRED_INTRA_GAIN = new Decimal('0.10');
/** ...and lower different-workload similarity by this much. */
export const REQUIRED_INTER_DROP = new Decimal('0.05');

function pair(t: Tightness | null | undefined): TightnessPair | null {
  return t && t.intra !== null && t.inter !== null ? { intra: t.intra, inter: t.inter } : null;
}

/** `intra rose 0.120`, `inter fell 0.174`, `intra did not change`: a change in words, never a negative rise. */
function moved(what: string, change: Decimal, up: string, down: string): string {
  if (change.isZero()) return `${what} did not change`;
  return `${what} ${change.gt(0) ? up : down} ${change.abs().toFixed(3)}`;
}

/** The verdict on two tightness figures: pass when v2 intra ≥ v1 intra + 0.10 and v2 inter ≤ v1 inter − 0.05. */
export function judgeTightness(v1: TightnessPair, v2: TightnessPair, source: NonNullable<TightnessVerdict['source']>): TightnessVerdict {
  // Decimal, so 0.6 − 0.5 is exactly 0.1 and a boundary case is not decided by float rounding.
  const gain = new Decimal(v2.intra).minus(v1.intra);
  const drop = new Decimal(v1.inter).minus(v2.inter);
  const failures: string[] = [];
  if (gain.lt(REQUIRED_INTRA_GAIN)) failures.push(`${moved('intra', gain, 'rose', 'fell')} (it must rise by at least ${REQUIRED_INTRA_GAIN.toFixed(2)})`);
  if (drop.lt(REQUIRED_INTER_DROP)) failures.push(`${moved('inter', drop.negated(), 'rose', 'fell')} (it must fall by at least ${REQUIRED_INTER_DROP.toFixed(2)})`);
  return {
    verdict: failures.length === 0 ? 'pass' : 'fail',
    source,
    v1,
    v2,
    intra_gain: gain.toString(),
    inter_drop: drop.toString(),
    required_intra_gain: REQUIRED_INTRA_GAIN.toFixed(2),
    required_inter_drop: REQUIRED_INTER_DROP.toFixed(2),
    reason: failures.length === 0 ? `${moved('intra', gain, 'rose', 'fell')} and ${moved('inter', drop.negated(), 'rose', 'fell')}` : failures.join('; '),
  };
}

/** Test 5 over two reports: B's v2 tightness against A's v1, else v1 and v2 within B, else within A. */
export function tightnessVerdict(a: BenchReport, b: BenchReport): TightnessVerdict {
  const ct = (r: BenchReport) => r.protocol_metrics?.cluster_tightness;
  const candidates = [
    { source: 'a_v1_vs_b_v2', v1: pair(ct(a)?.v1), v2: pair(ct(b)?.v2) },
    { source: 'within_b', v1: pair(ct(b)?.v1), v2: pair(ct(b)?.v2) },
    { source: 'within_a', v1: pair(ct(a)?.v1), v2: pair(ct(a)?.v2) },
  ] as const;
  for (const c of candidates) if (c.v1 && c.v2) return judgeTightness(c.v1, c.v2, c.source);
  return {
    verdict: 'not_applicable',
    source: null,
    v1: pair(ct(a)?.v1) ?? pair(ct(b)?.v1),
    v2: pair(ct(b)?.v2) ?? pair(ct(a)?.v2),
    intra_gain: null,
    inter_drop: null,
    required_intra_gain: REQUIRED_INTRA_GAIN.toFixed(2),
    required_inter_drop: REQUIRED_INTER_DROP.toFixed(2),
    reason: 'needs v1 cluster tightness (A, or B) and v2 cluster tightness (B, or A) with both intra and inter; A3 reports carry them',
  };
}
