#!/usr/bin/env node
// `analyze ...` is `bench analyze ...`. CommonJS, so a start does not set up Node's ES module loader.
'use strict';
const { exitWhenIdle, loadMain } = require('./launch.cjs');

loadMain(process.env, 'analyze')
  .then(({ main }) => main(['analyze', ...process.argv.slice(2)]))
  .then(exitWhenIdle, (e) => {
    // As an uncaught error would end it: the stack on stderr, exit 1 (an ES module's top-level await did the same).
    process.exitCode = 1;
    throw e;
  });
