#!/usr/bin/env node
'use strict';

/**
 * Builds the web client: bundles src/ into dist/app.js.
 * Usage: node scripts/build.js
 */

const fs = require('fs');
const path = require('path');
const { EventEmitter } = require('events');

const ROOT = path.resolve(__dirname, '..');
const OUT_FILE = path.join(ROOT, 'dist', 'app.js');

/**
 * A build step. Subclasses implement run(files) and return the files
 * the next step works on; "start" and "done" are emitted around it.
 */
class Step extends EventEmitter {
  constructor(name) {
    super();
    this.name = name;
  }

  /** Runs the step: a subclass must override it. */
  run(files) {
    throw new Error(`${this.name}: run(${files.length} files) is not implemented`);
  }

  exec(files) {
    this.emit('start', this.name);
    const out = this.run(files);
    this.emit('done', this.name, out.length);
    return out;
  }
}

/** Concatenates the sources into one bundle. */
class BundleStep extends Step {
  constructor(outFile) {
    super('bundle');
    this.outFile = outFile;
  }

  run(files) {
    const code = files.map((file) => fs.readFileSync(file, 'utf8')).join('\n;\n');
    fs.mkdirSync(path.dirname(this.outFile), { recursive: true });
    fs.writeFileSync(this.outFile, banner() + code);
    return [this.outFile];
  }
}

// Drops line comments and blank lines: a very small minifier.
const StripStep = class extends Step {
  run(files) {
    for (const file of files) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      fs.writeFileSync(file, lines.filter((l) => l.trim() && !l.trim().startsWith('//')).join('\n'));
    }
    return files;
  }
};

/** Reports whether file is a source file of the client. */
const isSource = (file) => /\.(js|ts|tsx)$/.test(file) && !file.endsWith('.test.ts');

/**
 * Yields the files under dir, depth first.
 * @param {string} dir
 */
function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      yield* walk(full);
    } else {
      yield full;
    }
  }
}

const banner = function () {
  return `/* sampleapp client, built ${new Date().toISOString()} */\n`;
};

/** Runs the steps in order on the sources and logs each one. */
async function build(steps) {
  let files = [...walk(path.join(ROOT, 'src'))].filter(isSource).sort();
  for (const step of steps) {
    step.on('done', (name, count) => console.log(`${name}: ${count} file(s)`));
    files = step.exec(files);
  }
  return files;
}

module.exports = { Step, BundleStep, StripStep, build };

if (require.main === module) {
  const steps = [new BundleStep(OUT_FILE), new StripStep('strip')];
  build(steps).catch((err) => {
    console.error(err.message);
    process.exitCode = 1;
  });
}
