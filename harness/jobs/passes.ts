/** One pass of a protocol: which model is forced (manual sticky), or none so routing is live. */
export interface PassSpec {
  name: string;
  /** `cheap` = --model, `strong` = --baseline, null = routing decides (slot 4 live). */
  forced: 'cheap' | 'strong' | null;
  description: string;
  /** Only workloads that expect delegation (`expect.min_delegate_calls > 0`) run in this pass. */
  delegationOnly?: boolean;
}

/** `--protocol single`: the actual model pinned for every turn. */
export const SINGLE_PASSES: readonly PassSpec[] = [{ name: 'single', forced: 'cheap', description: 'every turn on --model' }];

/** The A3 protocol (spec §8.2): seed with both arms, then route over the seeded pattern store. */
export const A3_PASSES: readonly PassSpec[] = [
  { name: 'A', forced: 'cheap', description: 'seed: every turn forced to the cheap model' },
  { name: 'B', forced: 'strong', description: 'seed: every turn forced to the strong model' },
  { name: 'C', forced: null, description: 'routing live: default cheap, slot 4 over the seeded store' },
  { name: 'D', forced: null, description: 'delegation: a planner (routed) hands sub-tasks to workers (tier models)', delegationOnly: true },
];

/**
 * `--holdout workload` (issue 13): Pass C again, leave-one-workload-out. Each workload is routed by a
 * frozen store seeded from the OTHER workloads' Pass A and B outcomes with workload_id null, as in real
 * traffic; the sim plays the same draws as Pass C (it is seeded as pass C), so the two are paired.
 */
export const HOLDOUT_PASS: PassSpec = { name: 'C-oos', forced: null, description: 'routing live, out of sample: each workload routed by a store seeded only from the other workloads' };

/**
 * Pass R (issue 23 item 2): the random router run as an arm. After the planned passes, each of Pass C's
 * (workload, rep) units again, every turn sent to the strong model with probability = Pass C's strong-call
 * share by the run's own seeded coin (harness/protocols/random-arm.ts). Not in the job plan: its share is
 * measured from a finished Pass C.
 */
export const RANDOM_PASS: PassSpec = { name: 'R', forced: null, description: "random router: each turn to the strong model with probability = Pass C's strong-call share (seeded coin)" };

/** The sample a holdout splits the store by; only `workload` today. */
export type HoldoutKind = 'workload';

/** Why Pass D can be absent from an A3 report. */
export const PASS_D_NOT_RUN = 'no selected workload expects delegation (expect.min_delegate_calls > 0); add multi-step-with-delegation to run Pass D';

/** `bench signal` (benchmark.md §4.2): the same workload on each arm, to measure the quality gap. */
export const SIGNAL_PASSES: readonly PassSpec[] = [
  { name: 'cheap', forced: 'cheap', description: 'every turn forced to the cheap model' },
  { name: 'strong', forced: 'strong', description: 'every turn forced to the strong model' },
];

/** The protocols a run can follow. */
export type ProtocolName = 'single' | 'a3' | 'signal';

/** The passes of a protocol. */
export function passesOf(protocol: ProtocolName): readonly PassSpec[] {
  return protocol === 'a3' ? A3_PASSES : protocol === 'signal' ? SIGNAL_PASSES : SINGLE_PASSES;
}
