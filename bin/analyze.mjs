#!/usr/bin/env node
// `analyze ...` is `bench analyze ...`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli/main.ts');
process.exitCode = await main(['analyze', ...process.argv.slice(2)]);
