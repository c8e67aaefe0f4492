// Cross-fitted replay: the learned tuner starts from labelled evidence, yet never decides a query with
// evidence that includes that query's own label. The asked queries are split in two folds by a fixed
// hash of their id; for each fold, a calibration replay of the OTHER fold (every would-be hit above the
// prior recomputed and labelled) warms a fresh tuner's ledgers, then the fold itself is replayed through
// a fresh cache with that tuner. Both replays hold the whole cache content (every warm query), so the
// index a query meets is the same as in a plain run. The report covers both folds: every query once.
import { createHash } from 'node:crypto';
import { AdaptiveThresholdTuner, type ThresholdTunerConfig } from '../../runtime/cache/threshold-tuner.ts';
import { SetupError } from '../errors.ts';
import type { QueryStream } from './load-stream.ts';
import { runStream, type StreamRunOptions } from './run-stream.ts';
import type { QueryRecord } from './stream-metrics.ts';

/** How the tuner's ledgers start: empty (`none`), or warmed by the other fold (`cross-fit`). */
export type CalibrationMode = 'none' | 'cross-fit';
export const CALIBRATION_MODES: readonly CalibrationMode[] = ['none', 'cross-fit'];

/** The fold (0 or 1) of a query id: a fixed hash, so every run and machine splits the same way. */
export function foldOf(id: string): 0 | 1 {
  return (createHash('sha256').update(id).digest()[0]! & 1) as 0 | 1;
}

export interface CrossFitRun {
  /** One record per asked query of the stream, in stream order. */
  records: QueryRecord[];
  /** Asked queries per fold. */
  foldSizes: [number, number];
  /** Labelled would-be hits the calibration replays gave each fold's tuner. */
  calibrationLabels: [number, number];
  /** Ctrl-C stopped a replay: the records cover only what was served before it. */
  interrupted: boolean;
}

/** Replays `stream` twice over, once per fold, each with a tuner calibrated on the other fold only. */
export async function runCrossFitted(stream: QueryStream, options: Omit<StreamRunOptions, 'tuner' | 'cache'> & { tuner?: Partial<ThresholdTunerConfig> }): Promise<CrossFitRun> {
  if (!stream.queries.some((q) => q.warm))
    throw new SetupError(`${stream.dir}/stream.yaml: cross-fit calibration needs a stream whose cache content is written first (warm queries); this one learns in order`);
  if ((options.tuner?.delta ?? 0) >= 1) throw new SetupError('cross-fit calibration needs the learned bound (--cache-delta below 1); a fixed threshold has nothing to calibrate');
  const fold = (f: 0 | 1): QueryStream => ({ ...stream, queries: stream.queries.filter((q) => q.warm || foldOf(q.id) === f) });
  const records: QueryRecord[] = [];
  const foldSizes: [number, number] = [0, 0];
  const calibrationLabels: [number, number] = [0, 0];
  let interrupted = false;
  for (const f of [0, 1] as const) {
    const tuner = new AdaptiveThresholdTuner(options.tuner);
    const calibration = await runStream(fold(f === 0 ? 1 : 0), { ...options, cache: true, tuner: tuner.fork({ exploreRate: 1 }) });
    calibrationLabels[f] = calibration.records.filter((r) => r.explored).length;
    if (calibration.interrupted) {
      interrupted = true;
      break;
    }
    const test = await runStream(fold(f), { ...options, cache: true, tuner });
    foldSizes[f] = test.records.length;
    records.push(...test.records);
    if (test.interrupted) {
      interrupted = true;
      break;
    }
  }
  const order = new Map(stream.queries.map((q, i) => [q.id, i]));
  records.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { records, foldSizes, calibrationLabels, interrupted };
}
