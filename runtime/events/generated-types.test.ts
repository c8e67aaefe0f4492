import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES_OUT, generateEventTypes } from '../../scripts/gen-event-types.ts';

describe('schemas/types/events.ts', () => {
  it('matches what scripts/gen-event-types.ts generates from schemas/events/ (run it after editing a schema)', async () => {
    expect(readFileSync(EVENT_TYPES_OUT, 'utf8')).toBe(await generateEventTypes());
  });
});
