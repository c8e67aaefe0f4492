// Fixture builders for pattern-store tests and scripts/perf/knn.ts: features by hand, and a seeded
// generator of varied, realistic ones.
import { seededRandom } from '../../core/seeded-random.ts';
import type { StructuralFeatures } from '../structural-features.ts';

export const HAIKU = 'anthropic:claude-haiku-4-5';
export const SONNET = 'anthropic:claude-sonnet-4-6';
export const OPUS = 'anthropic:claude-opus-4-5';

/** Features with every set empty (a session's first turn), with overrides. */
export function features(overrides: Partial<StructuralFeatures> = {}): StructuralFeatures {
  return {
    file_extensions: [],
    file_path_buckets: [],
    tool_names: [],
    side_effect_classes: [],
    has_images: false,
    has_tool_calls_in_history: false,
    estimated_input_tokens_bucket: 0,
    intent_tags: [],
    workspace_hash: 'ws',
    workload_id: null,
    ...overrides,
  };
}

/** The project's seeded PRNG, so generated corpora are the same on every run. */
export { seededRandom };

const INTENTS = ['commit', 'refactor', 'architecture', 'debug', 'doc', 'test'];
const EXTENSIONS = ['.py', '.ts', '.md', '.sql', '.json', '.yaml', '.go', '.rs', '.js', '.toml', '.txt', '.css', '.html', '.sh', '.java'];
const TOOLS: [string, string][] = [
  ['read_file', 'read'],
  ['list_files', 'read'],
  ['write_file', 'write'],
  ['edit_file', 'write'],
  ['run_shell', 'execute'],
  ['skill_load', 'read'],
  ['skill_search', 'read'],
  ['delegate', 'network'],
];
const BUCKETS = ['.', 'src', 'tests', 'docs', 'lib', 'scripts', 'config', 'app', 'pkg', 'migrations'];
const WORKLOADS = ['fix-failing-test', 'write-a-doc-from-notes', 'refactor-module', 'sql-report', 'add-endpoint', 'rename-symbol',
  'explain-architecture', 'bump-deps', 'commit-message', 'debug-crash', 'summarize-log'];

/** A generator of varied features: a few labels per field, workloads for most, agent-loop turns (no workload) for some. */
export function createFeatureGenerator(seed: number): () => StructuralFeatures {
  const rnd = seededRandom(seed);
  const pick = <T>(pool: readonly T[], max: number): T[] => {
    const n = Math.floor(rnd() * (max + 1));
    const out = new Set<T>();
    for (let i = 0; i < n; i++) out.add(pool[Math.floor(rnd() * pool.length)]!);
    return [...out];
  };
  return () => {
    const tools = pick(TOOLS, 4);
    return features({
      intent_tags: pick(INTENTS, 2).sort(),
      file_extensions: pick(EXTENSIONS, 3).sort(),
      tool_names: tools.map(([n]) => n).sort(),
      side_effect_classes: [...new Set(tools.map(([, e]) => e))].sort(),
      file_path_buckets: pick(BUCKETS, 3).sort(),
      has_images: rnd() < 0.1,
      has_tool_calls_in_history: tools.length > 0,
      estimated_input_tokens_bucket: Math.floor(rnd() * 4),
      workspace_hash: 'perf',
      workload_id: rnd() < 0.8 ? WORKLOADS[Math.floor(rnd() * WORKLOADS.length)]! : null,
    });
  };
}
