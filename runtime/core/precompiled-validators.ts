// Validators compiled ahead of time, by schema path under schemas/. From the sources there are none and
// validatorFor compiles each schema at first use; scripts/build-dist.mjs replaces this module in dist/ with
// ajv's standalone code for every schema, so the compiled CLI skips ajv's compile (a quarter of analyze).
import type { ValidateFunction } from 'ajv';

/** Validators by schema path (`workload.schema.json`, `events/turn.started.json`), or null: compile at first use. */
export const PRECOMPILED: ReadonlyMap<string, ValidateFunction> | null = null;
