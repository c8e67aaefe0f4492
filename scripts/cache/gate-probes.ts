// The exact-token gate against issue 22's probes: each probe's base is asked, then its opposite
// (declared expect: miss), through the cache with the local:use-lite embedder, at a fixed threshold
// (--cache-delta 1: the task type's prior) and at the default delta 0.01 once the ledger holds 400
// agreeing labels at the prior floor of every task type (as after many genuine paraphrases there).
// Prints one JSON line per probe and setting: similarity of the base, served or not, why not.
//   npx tsx scripts/cache/gate-probes.ts [--root <checkout>]
// --root runs another checkout's cache code (e.g. one before the gate change) on the same probes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** [probe, base, opposite]: the list, each with one more word reworded (so a one-word swap between otherwise identical texts cannot be what refuses it). */
export const PROBES: readonly (readonly [string, string, string])[] = [
  ['number words', 'How many hours are there in two days?', 'How many hours are in five days?'],
  ['scale words', 'What is one million divided by four?', "What's one thousand divided by four?"],
  ['Unicode minus', 'What is the absolute value of 7?', "What's the absolute value of \u22127?"],
  ['"minus"', 'What is the cube of 3?', "What's the cube of minus 3?"],
  ['non-ASCII digits', 'Is \u0662\u0661 a prime number?', 'Is \u0662\u0663 a prime?'],
  ['moved negation', 'Which settings are not required when the cache is enabled?', 'Which settings are required when the cache is not enabled?'],
  ['with/without once "not" is present', 'Why does the build not fail with the cache?', 'Why does the build not fail without the cache?'],
  ['increase/decrease + one word', 'How do I increase the connection pool size quickly?', 'How do I decrease the connection pool size fast?'],
  ['max/min + one word', 'How do I find the max value in a list?', 'How do I get the min value in a list?'],
  ['enable/disable + one word', 'How can I enable verbose logging in nginx?', 'How do I disable verbose logging in nginx?'],
  ['before/after + one word', 'Should database migrations run before the deploy step?', 'Should database migrations happen after the deploy step?'],
];

const q = (s: string) => JSON.stringify(s);

function probeStream(root: string, base: string, opposite: string): string {
  const dir = join(root, 'cache-probe');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'stream.yaml'),
    [
      'name: cache-probe', 'kind: query_stream', 'set: adversarial', 'description: one gate probe', 'credit: Written for this project.', 'queries:',
      `  - { id: base, class: base, text: ${q(base)}, answer: "A" }`,
      `  - { id: opposite, class: opposite, text: ${q(opposite)}, answer: "B", expect: miss }`,
      '',
    ].join('\n'),
  );
  return dir;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--root');
  const root = resolve(at > 0 ? process.argv[at + 1]! : new URL('../..', import.meta.url).pathname);
  const { loadQueryStream } = await import(join(root, 'harness/cache-bench/load-stream.ts'));
  const { runStream } = await import(join(root, 'harness/cache-bench/run-stream.ts'));
  const { AdaptiveThresholdTuner, TASK_TYPES, newEntryThresholdState } = await import(join(root, 'runtime/cache/threshold-tuner.ts'));
  const { createEmbeddingProvider } = await import(join(root, 'runtime/patterns/embeddings/create-embedding-provider.ts'));
  const { loadPriceTable } = await import(join(root, 'runtime/pricing/index.ts'));
  const embedder = createEmbeddingProvider('local:use-lite', { env: process.env });
  const prices = loadPriceTable();
  const tmp = mkdtempSync(join(tmpdir(), 'gate-probes-'));
  try {
    for (const [i, [probe, base, opposite]] of PROBES.entries()) {
      const stream = loadQueryStream(probeStream(join(tmp, String(i)), base, opposite));
      // The pair's cosine, whatever the gate says (a refused candidate records none).
      const [va, vb] = (await embedder.embed([base, opposite])) as Float32Array[];
      const cosine = va!.reduce((sum, x, k) => sum + x * vb![k]!, 0) / Math.sqrt(va!.reduce((s2, x) => s2 + x * x, 0) * vb!.reduce((s2, x) => s2 + x * x, 0));
      const warmed = new AdaptiveThresholdTuner({ exploreRate: 0 });
      for (const t of TASK_TYPES) for (let k = 0; k < 400; k++) warmed.record(t, warmed.getThreshold(t) + 0.002, true, newEntryThresholdState());
      for (const [setting, tuner] of [['--cache-delta 1', { delta: 1 }], ['default delta 0.01, warmed ledger', warmed]] as const) {
        const run = await runStream(stream, { cache: true, embedder, prices, tuner });
        const r = run.records.find((x: { id: string }) => x.id === 'opposite');
        console.log(JSON.stringify({ root, probe, setting, cosine: Number(cosine.toFixed(3)), served: r.servedBy !== null, miss_reason: r.missReason }));
      }
    }
  } finally {
    await embedder.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === new URL(import.meta.url).pathname) await main();
