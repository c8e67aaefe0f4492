import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, EventCatalogError, EventValidationError, EVENTS_SCHEMA_DIR, eventCatalog, eventCatalogDigest, loadEventCatalog } from './index.ts';

/** Spec §6 floors and typical actors for the types the project emits (event-bus-and-trace-catalog.md). */
const SPEC: Record<string, [string, string]> = {
  'session.created': ['pseudonymous', 'system'],
  'session.ended': ['pseudonymous', 'system'],
  'turn.started': ['private', 'user'],
  'turn.completed': ['pseudonymous', 'agent'],
  'llm.call_started': ['private', 'agent'],
  'llm.call_completed': ['pseudonymous', 'agent'],
  'llm.call_failed': ['pseudonymous', 'agent'],
  'tool.called': ['private', 'agent'],
  'tool.completed': ['private', 'tool'],
  'tool.failed': ['private', 'tool'],
  'tool.input_invalid': ['pseudonymous', 'system'],
  'route.decided': ['pseudonymous', 'system'],
  'routing.policy_invalid': ['pseudonymous', 'system'],
  'eval.started': ['pseudonymous', 'system'],
  'eval.completed': ['user_controlled', 'system'],
  'eval.failed': ['pseudonymous', 'system'],
  'delegate.started': ['pseudonymous', 'system'],
  'delegate.completed': ['pseudonymous', 'system'],
  'delegate.failed': ['pseudonymous', 'system'],
  'pattern.recorded': ['pseudonymous', 'system'],
  'pattern.matched': ['pseudonymous', 'system'],
  'pattern.evicted': ['pseudonymous', 'system'],
  'skill.loaded': ['pseudonymous', 'system'],
  'cache.hit': ['pseudonymous', 'system'],
  'cache.miss': ['pseudonymous', 'system'],
  'cache.set': ['pseudonymous', 'system'],
  'cache.evicted': ['pseudonymous', 'system'],
};

const MONEY_FIELDS: [string, string][] = [
  ['pattern.recorded', 'cost_usd_at_record'],
  ['delegate.completed', 'worker_total_cost_usd'],
  ['delegate.failed', 'worker_total_cost_usd'],
  ['llm.call_completed', 'cost_usd'],
  ['cache.hit', 'avoided_cost_usd'],
  ['cache.hit', 'served_cost_usd'],
  ['cache.hit', 'embed_cost_usd'],
  ['cache.miss', 'embed_cost_usd'],
  ['cache.set', 'cost_usd'],
  ['turn.completed', 'total_cost_usd'],
  ['session.ended', 'total_cost_usd'],
  ['eval.completed', 'judge_cost_usd'],
];

type Schema = Record<string, unknown>;
const readSchemaFile = (type: string): Schema => JSON.parse(readFileSync(join(EVENTS_SCHEMA_DIR, `${type}.json`), 'utf8')) as Schema;

/** Every object schema with `properties`, at any depth. */
function objectSchemas(node: unknown, at = '(root)'): [string, Schema][] {
  if (!node || typeof node !== 'object') return [];
  const s = node as Schema;
  const found: [string, Schema][] = s.properties ? [[at, s]] : [];
  for (const [k, v] of Object.entries(s.properties ?? {})) found.push(...objectSchemas(v, `${at}.${k}`));
  if (s.items) found.push(...objectSchemas(s.items, `${at}[]`));
  return found;
}

describe('event catalog data', () => {
  it('lists exactly the types the project emits, with the spec floors and actors', () => {
    const got = Object.fromEntries(eventCatalog().entries.map((e) => [e.type, [e.sensitivity, e.actor]]));
    expect(got).toEqual(SPEC);
  });

  it('has one schema file per catalog line and no orphan schema files', () => {
    const files = readdirSync(EVENTS_SCHEMA_DIR).filter((f) => f.endsWith('.json') && !f.startsWith('catalog'));
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual(Object.keys(SPEC).sort());
  });

  it.each(Object.keys(SPEC))('%s: draft-07, $id names the file, no unknown keys at any depth', (type) => {
    const schema = readSchemaFile(type);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toBe(`https://metis.dev/schemas/events/${type}.json`);
    for (const [where, obj] of objectSchemas(schema)) expect([where, obj.additionalProperties]).toEqual([where, false]);
  });

  it.each(MONEY_FIELDS)('%s.%s is a Decimal string, never a number', (type, field) => {
    const prop = (readSchemaFile(type).properties as Record<string, Schema>)[field]!;
    expect(prop).toMatchObject({ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' });
  });

  it('keeps non-additive nullable fields required (present, possibly null) and additive ones optional', () => {
    const required = (type: string) => readSchemaFile(type).required as string[];
    expect(required('session.created')).toContain('initial_active_model');
    expect(required('tool.completed')).toEqual(expect.arrayContaining(['files_modified', 'command_executed']));
    expect(required('llm.call_completed')).not.toEqual(expect.arrayContaining(['gateway_key_id']));
    for (const f of ['gateway_key_id', 'inbound_shape', 'user_id', 'team_id']) expect(required('llm.call_completed')).not.toContain(f);
    for (const f of ['signals_extra', 'user_id', 'team_id']) expect(required('turn.completed')).not.toContain(f);
  });
});

describe('adding a type = a schema file + a catalog line', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function copyCatalog(): string {
    dir = mkdtempSync(join(tmpdir(), 'metis-catalog-'));
    cpSync(EVENTS_SCHEMA_DIR, dir, { recursive: true });
    return dir;
  }

  it('a dropped-in type is validated and stamped with its floor', async () => {
    const d = copyCatalog();
    const catalog = JSON.parse(readFileSync(join(d, 'catalog.json'), 'utf8')) as { types: unknown[] };
    catalog.types.push({ type: 'feedback.explicit', sensitivity: 'aggregatable', actor: 'user', parents: ['turn.completed'] });
    writeFileSync(join(d, 'catalog.json'), JSON.stringify(catalog));
    writeFileSync(
      join(d, 'feedback.explicit.json'),
      JSON.stringify({
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'https://metis.dev/schemas/events/test-only/feedback.explicit.json',
        type: 'object',
        additionalProperties: false,
        required: ['rating'],
        properties: { rating: { type: 'string', enum: ['thumbs_up', 'thumbs_down'] } },
      }),
    );
    const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createVirtualClock(), catalog: loadEventCatalog(d) });
    const e = bus.emit({ session_id: 's', type: 'feedback.explicit', actor: 'user', payload: { rating: 'thumbs_up' } });
    expect(e.sensitivity).toBe('aggregatable');
    expect(() => bus.emit({ session_id: 's', type: 'feedback.explicit', actor: 'user', payload: { rating: 'meh' } })).toThrow(EventValidationError);
    await bus.drain();
  });

  it("eventCatalogDigest gives the loaded catalog's version and digest from the files alone, and follows every edit the digest covers", () => {
    const d = copyCatalog();
    const loaded = (dir: string) => {
      const c = loadEventCatalog(dir);
      return { version: c.version, digest: c.digest };
    };
    expect(eventCatalogDigest(EVENTS_SCHEMA_DIR)).toEqual(loaded(EVENTS_SCHEMA_DIR));
    expect(eventCatalogDigest(d)).toEqual(loaded(EVENTS_SCHEMA_DIR));
    const seen = new Set([eventCatalogDigest(d).digest]);
    // A payload schema edited, then catalog.json: each gives another digest, the same one loading gives.
    writeFileSync(join(d, 'tool.failed.json'), `${readFileSync(join(d, 'tool.failed.json'), 'utf8')} `);
    expect(eventCatalogDigest(d)).toEqual(loaded(d));
    seen.add(eventCatalogDigest(d).digest);
    writeFileSync(join(d, 'catalog.json'), `${readFileSync(join(d, 'catalog.json'), 'utf8')} `);
    expect(eventCatalogDigest(d)).toEqual(loaded(d));
    seen.add(eventCatalogDigest(d).digest);
    expect(seen.size).toBe(3);
    // Files the catalog cannot load with: loading's error, not a digest.
    rmSync(join(d, 'tool.failed.json'));
    expect(() => eventCatalogDigest(d)).toThrow(join(d, 'tool.failed.json'));
  });

  it('a catalog line without its schema file is refused, naming the file', () => {
    const d = copyCatalog();
    rmSync(join(d, 'tool.failed.json'));
    expect(() => loadEventCatalog(d)).toThrow(EventCatalogError);
    expect(() => loadEventCatalog(d)).toThrow(join(d, 'tool.failed.json'));
  });

  it('a malformed catalog line is refused with the schema error', () => {
    const d = copyCatalog();
    writeFileSync(join(d, 'catalog.json'), JSON.stringify({ version: 1, types: [{ type: 'text.delta', sensitivity: 'private', actor: 'agent', parents: [] }] }));
    // text.* is reserved for streaming-only events (catalog §4.5.1).
    expect(() => loadEventCatalog(d)).toThrow(/catalog\.json: \/types\/0\/type/);
  });

  it('a duplicated type is refused', () => {
    const d = copyCatalog();
    const line = { type: 'session.ended', sensitivity: 'pseudonymous', actor: 'system', parents: [] };
    writeFileSync(join(d, 'catalog.json'), JSON.stringify({ version: 1, types: [line, line] }));
    expect(() => loadEventCatalog(d)).toThrow(/listed twice/);
  });
});
