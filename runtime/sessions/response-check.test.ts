import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkResponse } from './response-check.ts';

const ok = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'm',
  content,
  stop_reason: 'end_turn',
  usage: {
    input_tokens: 1,
    output_tokens: 1,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
  },
  latency_ms: 0,
  request_id: 'r',
  ...extra,
});

describe('checkResponse', () => {
  it('accepts a canonical response, whatever its tool inputs look like', () => {
    expect(checkResponse(ok([{ type: 'text', text: 'hi' }]), 100)).toBeNull();
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        expect(
          checkResponse(
            ok([{ type: 'tool_use', id: 'tu', name: 'read_file', input }], {
              stop_reason: 'tool_use',
            }),
            1e9,
          ),
        ).toBeNull();
      }),
    );
  });

  it.each([
    ['{}', {}, /content should be a list/],
    ['null', null, /expected a response object, got null/],
    ['content not a list', { ...ok([]), content: 'x' }, /content should be a list of blocks, got string/],
    ['unknown stop reason', ok([], { stop_reason: 'paused' }), /unknown stop_reason "paused"/],
    [
      'negative usage',
      ok([], {
        usage: {
          input_tokens: -1,
          output_tokens: 0,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      }),
      /usage.input_tokens/,
    ],
    ['text without text', ok([{ type: 'text' }]), /content\[0\].text should be a string/],
    ['tool_use without id', ok([{ type: 'tool_use', name: 'x', input: {} }]), /content\[0\].id/],
    ['foreign block', ok([{ type: 'image' }]), /type "image"/],
    ['NaN latency', ok([], { latency_ms: Number.NaN }), /latency_ms/],
  ])('refuses %s as malformed_response', (_name, r, message) => {
    const problem = checkResponse(r, 1_000);
    expect(problem?.errorClass).toBe('malformed_response');
    expect(problem?.message).toMatch(message);
  });

  it('refuses text or tool input past the cap as response_too_large', () => {
    expect(checkResponse(ok([{ type: 'text', text: 'x'.repeat(101) }]), 100)?.errorClass).toBe('response_too_large');
    expect(
      checkResponse(
        ok([
          {
            type: 'tool_use',
            id: 't',
            name: 'w',
            input: { content: 'x'.repeat(200) },
          },
        ]),
        100,
      )?.errorClass,
    ).toBe('response_too_large');
    expect(checkResponse(ok([{ type: 'text', text: 'x'.repeat(100) }]), 100)).toBeNull();
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        checkResponse(v, 1_000);
      }),
    );
  });
});
