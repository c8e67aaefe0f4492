// Child process for cache-store.test.ts: writes cache entries in a loop until it is killed.
import { CacheStore } from '../cache-store.ts';

const store = new CacheStore(process.argv[2]!);
const big = 'x'.repeat(20_000);
for (let i = 0; ; i++) {
  store.put(
    {
      id: `e${i}`,
      tier: 'semantic',
      key: 'p',
      query: `query ${i}`,
      task_type: 'general',
      response: { model: 'm', content: [{ type: 'text', text: big }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 1, request_id: 'r' },
      cost_usd: '0.001',
      created_us: i,
      last_used_us: i,
      hits: 0,
      threshold: { wrongAbove: -1, observations: 0 },
    },
    'test:deterministic-8',
    new Float32Array(8).fill(i % 7),
    i > 2 ? [`e${i - 3}`] : [],
  );
  if (i === 20) process.stdout.write('writing\n');
}
