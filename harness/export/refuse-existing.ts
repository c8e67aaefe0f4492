import { existsSync } from 'node:fs';
import { SetupError } from '../errors.ts';

/** Refuses (exit 2) to overwrite a file `bench export` would write, naming it and `--force`. */
export function refuseExisting(path: string, flag: string): void {
  if (existsSync(path)) throw new SetupError(`${path}: already exists; bench export does not overwrite it: pass --force to replace it, or another ${flag}`);
}
