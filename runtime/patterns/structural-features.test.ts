import { describe, expect, it } from 'vitest';
import { extractTurnFeatures } from '../routing/index.ts';
import type { Message } from '../types/content.ts';
import { canonicalFeaturesJson, computeStructuralFeatures, inputTokensBucket, normalizeFeatures, structuralSignature, type FingerprintInput } from './index.ts';
import { features } from './test-support/feature-fixtures.ts';

const call = (id: string, name: string, input: Record<string, unknown>): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name, input }] });

const HISTORY: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'earlier question about web/app.vue' }] },
  call('tu_1', 'read_file', { path: 'src/auth/login.py' }),
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: '...', is_error: false }] },
  call('tu_2', 'list_files', { path: 'tests' }),
  call('tu_3', 'run_shell', { command: 'pytest -q' }),
  call('tu_4', 'write_file', { path: './README.MD', content: '# hi' }),
  call('tu_5', 'mystery_tool', { path: '../outside/x.go' }),
  call('tu_6', 'skill_search', { query: 'sql' }),
];

const INPUT: FingerprintInput = {
  userMessage: 'Refactor `lib/util.ts` and fix the bug described in docs/guide.md, and/or see notes.txt.',
  history: HISTORY,
  toolSideEffects: { read_file: 'read', list_files: 'read', run_shell: 'execute', write_file: 'write', skill_search: 'none' },
  estimatedInputTokens: 12_345,
  hasImages: false,
  workspaceHash: 'abc123',
  workloadId: 'refactor-module',
};

describe('computeStructuralFeatures (pattern-store.md §4, §5.2)', () => {
  it('derives every field from the message and the tool calls in history', () => {
    expect(computeStructuralFeatures(INPUT)).toEqual({
      // Message paths and tool `path`s; lowercase; a path leaving the workspace still names its type.
      file_extensions: ['.go', '.md', '.py', '.ts', '.txt'],
      // Top-level dirs; `.` for a root file a tool touched; nothing for `..` paths, prose like and/or, or bare names in prose.
      file_path_buckets: ['.', 'docs', 'lib', 'src', 'tests'],
      tool_names: ['list_files', 'mystery_tool', 'read_file', 'run_shell', 'skill_search', 'write_file'],
      // A tool declaring `none` and an unknown tool add no class.
      side_effect_classes: ['execute', 'read', 'write'],
      has_images: false,
      has_tool_calls_in_history: true,
      estimated_input_tokens_bucket: 2,
      intent_tags: ['debug', 'doc', 'refactor'],
      workspace_hash: 'abc123',
      workload_id: 'refactor-module',
    });
  });

  it('uses the routing rule slot intent regexes, sorted', () => {
    const msg = 'Please write tests, then commit; the design doc explains the crash';
    const tags = computeStructuralFeatures({ ...INPUT, userMessage: msg }).intent_tags;
    expect(tags).toEqual([...extractTurnFeatures(msg, []).intent_tags].sort());
    expect(tags).toEqual(['architecture', 'commit', 'debug', 'doc', 'test']);
  });

  it('buckets input size by log10', () => {
    const cases: [number, number][] = [
      [0, 0], [999, 0], [1_000, 1], [9_999, 1], [10_000, 2], [99_999, 2], [100_000, 3], [5_000_000, 3], [-5, 0], [Number.NaN, 0],
    ];
    for (const [tokens, bucket] of cases) expect([tokens, inputTokensBucket(tokens)]).toEqual([tokens, bucket]);
  });

  it('is deterministic and independent of tool-call order', () => {
    const shuffled = { ...INPUT, history: [...HISTORY].reverse() };
    expect(computeStructuralFeatures(shuffled)).toEqual(computeStructuralFeatures(INPUT));
    expect(structuralSignature(computeStructuralFeatures(shuffled))).toBe(structuralSignature(computeStructuralFeatures(INPUT)));
  });

  it('reports no tool history and no labels on a first turn', () => {
    const f = computeStructuralFeatures({ ...INPUT, userMessage: 'hi', history: [], estimatedInputTokens: 10, workloadId: null });
    expect(f).toEqual(features({ workspace_hash: 'abc123' }));
  });
});

describe('structural signature', () => {
  const f = features({ intent_tags: ['test', 'debug'], file_extensions: ['.TS', '.py', '.py'], workload_id: 'w' });

  it('is the same for the same sets in any order, case of extensions or duplicates', () => {
    const g = features({ intent_tags: ['debug', 'test'], file_extensions: ['.py', '.ts'], workload_id: 'w' });
    expect(structuralSignature(f)).toBe(structuralSignature(g));
    expect(canonicalFeaturesJson(f)).toBe(canonicalFeaturesJson(g));
    expect(normalizeFeatures(normalizeFeatures(f))).toEqual(normalizeFeatures(f));
  });

  it('is a SHA-256 that changes with any stored field, workspace_hash and workload_id included', () => {
    expect(structuralSignature(f)).toMatch(/^[0-9a-f]{64}$/);
    expect(structuralSignature({ ...f, workspace_hash: 'other' })).not.toBe(structuralSignature(f));
    expect(structuralSignature({ ...f, workload_id: null })).not.toBe(structuralSignature(f));
    expect(structuralSignature({ ...f, has_tool_calls_in_history: true })).not.toBe(structuralSignature(f));
  });
});
