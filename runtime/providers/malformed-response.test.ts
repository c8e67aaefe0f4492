import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIdFactory } from '../core/ids.ts';
import { fromAnthropicMessage } from './anthropic/anthropic-response.ts';
import { fromOpenAICompletion } from './openai/openai-response.ts';
import { ProviderError } from './provider.ts';

// Both parsers take whatever a 2xx body held: they return canonical parts or throw a classified
// malformed_response, never a TypeError that would escape as a crash.
const ids = createIdFactory(() => 0);
const parsers = {
  anthropic: (body: unknown) => fromAnthropicMessage(body as never, ids),
  openai: (body: unknown) => fromOpenAICompletion(body as never, ids),
};

const outcome = (parse: (b: unknown) => unknown, body: unknown): string => {
  try {
    parse(body);
    return 'ok';
  } catch (e) {
    return e instanceof ProviderError ? e.errorClass : `raw ${String(e)}`;
  }
};

describe.each(Object.entries(parsers))('%s response parser', (name, parse) => {
  it.each([{}, null, 'text', [], { content: {} }, { choices: [{}] }, { choices: [{ message: { content: 5 } }] }, { content: [{ type: 'text', text: 5 }] }])(
    '%j is malformed_response',
    (body) => {
      expect(outcome(parse, body)).toBe('malformed_response');
    },
  );

  it('never throws anything but a classified ProviderError', () => {
    const shaped =
      name === 'anthropic'
        ? fc.record(
            {
              content: fc.array(
                fc.record(
                  {
                    type: fc.constantFrom('text', 'tool_use', 'thinking'),
                    text: fc.anything(),
                    name: fc.anything(),
                    input: fc.anything(),
                  },
                  { requiredKeys: ['type'] },
                ),
              ),
              stop_reason: fc.anything(),
              usage: fc.anything(),
              id: fc.anything(),
            },
            { requiredKeys: [] },
          )
        : fc.record(
            {
              choices: fc.array(
                fc.record(
                  {
                    message: fc.record(
                      {
                        content: fc.anything(),
                        refusal: fc.anything(),
                        tool_calls: fc.anything(),
                      },
                      { requiredKeys: [] },
                    ),
                    finish_reason: fc.anything(),
                  },
                  { requiredKeys: [] },
                ),
              ),
              usage: fc.anything(),
              id: fc.anything(),
            },
            { requiredKeys: [] },
          );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), shaped), (body) => {
        expect(['ok', 'malformed_response']).toContain(outcome(parse, body));
      }),
      { numRuns: 500 },
    );
  });
});

describe('tool inputs that are not objects', () => {
  it('anthropic keeps them as raw text, so the dispatcher answers tool.input_invalid', () => {
    const r = fromAnthropicMessage(
      {
        content: [{ type: 'tool_use', id: 'x', name: 'read_file', input: [1, 2] }],
        stop_reason: 'tool_use',
      } as never,
      ids,
    );
    expect(r.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'read_file',
      input: { __invalid_json_arguments: '[1,2]' },
    });
  });
});
