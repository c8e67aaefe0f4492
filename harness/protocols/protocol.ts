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

/** The passes of a protocol. */
export function passesOf(protocol: 'single' | 'a3'): readonly PassSpec[] {
  return protocol === 'a3' ? A3_PASSES : SINGLE_PASSES;
}
