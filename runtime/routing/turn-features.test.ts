import { describe, expect, it } from 'vitest';
import { extractTurnFeatures } from './turn-features.ts';

describe('extractTurnFeatures', () => {
  it('tags intent from the message and collects extensions from it and from earlier tool paths', () => {
    const f = extractTurnFeatures('Fix the failing test in `lib/parse.TS` and commit', [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'docs/guide.md' } }] },
    ]);
    expect(f.intent_tags).toEqual(['commit', 'debug', 'test']);
    expect(f.file_extensions).toEqual(['.md', '.ts']);
  });

  it('finds nothing in a plain request', () => {
    expect(extractTurnFeatures('What does this project do', [])).toEqual({ intent_tags: [], file_extensions: [] });
  });
});
