/** One pass of a protocol: which model is forced (manual sticky), or none so routing is live. */
export interface PassSpec {
  name: string;
  /** `cheap` = --model, `strong` = --baseline, null = routing decides (slot 4 live). */
  forced: 'cheap' | 'strong' | null;
  description: string;
}

/** `--protocol single`: the actual model pinned for every turn. */
export const SINGLE_PASSES: readonly PassSpec[] = [{ name: 'single', forced: 'cheap', description: 'every turn on --model' }];

/** The A3 protocol (spec §8.2): seed with both arms, then route over the seeded pattern store. */
export const A3_PASSES: readonly PassSpec[] = [
  { name: 'A', forced: 'cheap', description: 'seed: every turn forced to the cheap model' },
  { name: 'B', forced: 'strong', description: 'seed: every turn forced to the strong model' },
  { name: 'C', forced: null, description: 'routing live: default cheap, slot 4 over the seeded store' },
];

/** Why Pass D is absent from every A3 report for now. */
export const PASS_D_NOT_RUN = 'Pass D needs the delegation workload and the delegate tool, which are not built yet';

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
