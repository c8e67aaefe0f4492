// The exact-token gate alone, on every pair it could be asked to judge, whatever the embedder or threshold:
// - cache-adversarial: each must-miss query (declared `expect: miss`, or the first ask of its class)
//   against every query asked before it (all of another class, so any pass could serve a wrong answer),
//   and each paraphrase against its own class (a pass is a possible right hit);
// - cache-gptcache: each paraphrase against its own pair's origin (the gate's ceiling on genuine hits).
// Prints one JSON object: counts, the passing must-miss pairs and the refused genuine pairs by reason.
//   npx tsx scripts/cache/gate-pairs.ts [--root <checkout>] [--list]
// --root judges with another checkout's gate (e.g. main before a change); --list prints every refused genuine pair.
import { join, resolve } from 'node:path';

async function main(): Promise<void> {
  const at = process.argv.indexOf('--root');
  const root = resolve(at > 0 ? process.argv[at + 1]! : new URL('../..', import.meta.url).pathname);
  const list = process.argv.includes('--list');
  const { loadQueryStream } = await import(join(root, 'harness/cache-bench/load-stream.ts'));
  const { gateMismatch, gateSignature } = await import(join(root, 'runtime/cache/exact-token-gate.ts'));
  type Q = { id: string; class: string; text: string; expect?: string; warm?: boolean };
  const sig = new Map<string, unknown>();
  const gate = (a: string, b: string): string | null => {
    for (const t of [a, b]) if (!sig.has(t)) sig.set(t, gateSignature(t));
    return gateMismatch(sig.get(a), sig.get(b));
  };

  const adv = loadQueryStream(join(root, 'workloads/cache-adversarial')).queries as Q[];
  const seen = new Set<string>();
  let mustMiss = 0;
  let mustMissPairs = 0;
  const passed: { query: string; cached: string }[] = [];
  const paraphrases: { query: string; cached: string; verdict: string | null }[] = [];
  adv.forEach((q, i) => {
    const isMustMiss = q.expect === 'miss' || !seen.has(q.class);
    seen.add(q.class);
    const earlier = adv.slice(0, i).filter((p) => p.text !== q.text);
    if (isMustMiss) {
      mustMiss++;
      for (const p of earlier) {
        mustMissPairs++;
        if (gate(q.text, p.text) === null) passed.push({ query: `${q.id}: ${q.text}`, cached: `${p.id}: ${p.text}` });
      }
    } else for (const p of earlier.filter((x) => x.class === q.class)) paraphrases.push({ query: q.id, cached: p.id, verdict: gate(q.text, p.text) });
  });

  const gpt = loadQueryStream(join(root, 'workloads/cache-gptcache')).queries as Q[];
  const origins = new Map<string, Q[]>();
  for (const q of gpt.filter((x) => x.warm)) origins.set(q.class, [...(origins.get(q.class) ?? []), q]);
  const byReason: Record<string, number> = {};
  const refused: { reason: string; query: string; cached: string }[] = [];
  let genuine = 0;
  let genuinePassed = 0;
  for (const q of gpt.filter((x) => !x.warm)) {
    // The pair's own origin (same id suffix), else any origin of its class.
    const own = origins.get(q.class) ?? [];
    if (!own.length) continue;
    genuine++;
    const verdicts = own.map((o) => ({ o, v: gate(q.text, o.text) }));
    const ok = verdicts.find((x) => x.v === null);
    if (ok) genuinePassed++;
    else {
      const { o, v } = verdicts[0]!;
      byReason[v!] = (byReason[v!] ?? 0) + 1;
      refused.push({ reason: v!, query: q.text, cached: o.text });
    }
  }
  const out = {
    root,
    adversarial: { must_miss_queries: mustMiss, must_miss_pairs: mustMissPairs, must_miss_pairs_passed: passed.length, passed, paraphrases },
    gptcache: { genuine_pairs: genuine, passed: genuinePassed, refused: genuine - genuinePassed, refused_by_reason: byReason, ...(list ? { refused_pairs: refused } : {}) },
  };
  console.log(JSON.stringify(out, null, 2));
}

await main();
