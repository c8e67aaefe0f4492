// Child process for the multi-process test: records N turns of one fingerprint into the store at
// argv[2] with turn ids `<argv[3]>-<i>`, then prints {"recorded": n, "warnings": [reasons]}.
import { Decimal } from 'decimal.js';
import { createSystemClock } from '../../core/clock.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import { openPatternStore } from '../sqlite-pattern-store.ts';
import { features, HAIKU } from './feature-fixtures.ts';

const [path, prefix, count] = process.argv.slice(2) as [string, string, string];
const logger = createMemoryLogger();
const store = openPatternStore(path, { logger, clock: createSystemClock() });
let recorded = 0;
for (let i = 0; i < Number(count); i++) {
  const r = store.record(
    { turn_id: `${prefix}-${i}`, features: features({ intent_tags: ['test'] }), primary_model: HAIKU, success_score: 1, cost_usd: new Decimal('0.001'), latency_ms: 5, pricing_version: 'v1' },
    { session_id: prefix, turn_id: null, parent_event_id: null },
  );
  if (r.sample_size_after > 0) recorded++;
}
store.close();
const warnings = logger.records.filter((r) => r.level === 'warn').map((r) => String(r.fields?.reason ?? r.msg));
process.stdout.write(JSON.stringify({ recorded, warnings }));
