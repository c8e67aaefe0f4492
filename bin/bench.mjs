#!/usr/bin/env node
// Compiled JavaScript from dist/ when it is fresh, else the TypeScript sources through tsx (launch.cjs).
import { exitWhenIdle, loadMain } from './launch.cjs';

const { main } = await loadMain();
exitWhenIdle(await main(process.argv.slice(2)));
