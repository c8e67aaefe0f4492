import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../provenance.ts';

/** The harness's version from package.json (`service.version` of exported spans, Inspect's `packages`). */
export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
