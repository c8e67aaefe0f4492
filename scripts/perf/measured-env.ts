// The environment a timed child process gets. Some variables make every Node process pay a fixed cost at start that
// has nothing to do with the code measured: with NODE_EXTRA_CA_CERTS set, Node 20 reads and parses that CA bundle
// (and its own root store) before running anything, about 37 ms on this 2-core machine, where `node -e 0` takes
// 20-24 ms without it. Added to both sides of a ratio, such a cost pulls every ratio toward 1 and flatters the side
// that does more. The scripts that time processes remove these variables and say which they removed.

/** Variables that cost every Node process a fixed start-up price, unrelated to the code being timed. */
export const START_COST_VARIABLES: readonly string[] = ['NODE_EXTRA_CA_CERTS'];

/** `env` without START_COST_VARIABLES, and the names of those it held. */
export function measuredEnv(env: NodeJS.ProcessEnv = process.env): { env: NodeJS.ProcessEnv; removed: string[] } {
  const out = { ...env };
  const removed = START_COST_VARIABLES.filter((name) => out[name] !== undefined);
  for (const name of removed) delete out[name];
  return { env: out, removed };
}
