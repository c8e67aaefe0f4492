// fast-check arbitraries for pattern-store property tests.
import fc from 'fast-check';
import type { StructuralFeatures } from '../structural-features.ts';

const labels = (pool: readonly string[], maxLength = 5) => fc.array(fc.constantFrom(...pool), { maxLength });

/** Features from small pools so pairs overlap; arrays may be unsorted or repeat labels. */
export const arbFeatures: fc.Arbitrary<StructuralFeatures> = fc.record({
  file_extensions: labels(['.py', '.ts', '.md', '.sql']),
  file_path_buckets: labels(['src', 'tests', 'docs', '.']),
  tool_names: labels(['read_file', 'write_file', 'run_shell', 'list_files']),
  side_effect_classes: labels(['read', 'write', 'execute', 'network']),
  has_images: fc.boolean(),
  has_tool_calls_in_history: fc.boolean(),
  estimated_input_tokens_bucket: fc.integer({ min: 0, max: 3 }),
  intent_tags: labels(['commit', 'refactor', 'architecture', 'debug', 'doc', 'test']),
  workspace_hash: fc.constantFrom('a', 'b'),
  workload_id: fc.constantFrom(null, 'w1', 'w2'),
});

/** 40 tool names: more than one 32-bit word of labels, to exercise the index's wide layout. */
const MANY_TOOLS = Array.from({ length: 40 }, (_, i) => `tool_${i}`);

/** Like `arbFeatures`, but tool names come from a 40-label pool. */
export const arbWideFeatures: fc.Arbitrary<StructuralFeatures> = fc
  .tuple(arbFeatures, labels(MANY_TOOLS, 6))
  .map(([f, tools]) => ({ ...f, tool_names: tools }));
