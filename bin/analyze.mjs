#!/usr/bin/env node
// `analyze ...` is `bench analyze ...`.
import { exitWhenIdle, loadMain } from './launch.mjs';

const { main } = await loadMain(process.env, 'analyze');
exitWhenIdle(await main(['analyze', ...process.argv.slice(2)]));
