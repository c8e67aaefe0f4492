#!/usr/bin/env node
// `analyze ...` is `bench analyze ...`.
import { loadMain } from './launch.mjs';

const { main } = await loadMain(process.env, 'analyze');
process.exitCode = await main(['analyze', ...process.argv.slice(2)]);
