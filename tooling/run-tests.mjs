#!/usr/bin/env node
/**
 * `pnpm test`: runs every package's vitest through turbo, so a package whose inputs (and whose
 * dependencies' inputs) did not change replays its cached result instead of running again, then
 * prints ONE closing summary over all packages in vitest's own words (CI reads its last line).
 * Arguments go to `turbo run test` (for example `--filter=@clat/kernel` or `--force`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = join('.vitest', 'report.json');
const RUNS = join(ROOT, '.turbo', 'runs');

const startedAt = Date.now();
const turbo = spawnSync(
  join(ROOT, 'node_modules', '.bin', 'turbo'),
  [
    'run',
    'test',
    '--continue',
    '--summarize',
    ...process.argv.slice(2),
    '--',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${REPORT}`,
  ],
  { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' },
);
if (turbo.error) {
  console.error(
    `pnpm test: could not start turbo (${turbo.error.message}); run pnpm install first`,
  );
  process.exit(1);
}

const tasks = testTasksOf(latestRunSummary(startedAt));
const totals = { files: count(), tests: count() };
const missing = [];
const failures = [];
let cached = 0;
for (const task of tasks) {
  if (task.cached) cached += 1;
  const file = join(ROOT, task.directory, REPORT);
  if (!existsSync(file) || (task.exitCode !== 0 && statSync(file).mtimeMs < startedAt)) {
    missing.push(task.package);
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  add(totals, report);
  failures.push(...failuresOf(task.package, report));
}

// Turbo interleaves every package's output, and a CI log is often read only at its tail: name
// each failed test here, just above the totals, so the tail alone says what to look at.
if (failures.length > 0) {
  console.log('');
  console.log(' Failed tests');
  for (const line of failures) console.log(`   ${line}`);
}

console.log('');
console.log(
  `   Packages  ${tasks.length} (${cached} replayed from the turbo cache${
    missing.length > 0 ? `; no report from ${missing.join(', ')}` : ''
  })`,
);
console.log(` Test Files  ${format(totals.files)}`);
console.log(`      Tests  ${format(totals.tests)}`);
const failed = turbo.status !== 0 || missing.length > 0 || totals.tests.failed > 0;
process.exit(failed ? 1 : 0);

function count() {
  return { failed: 0, passed: 0, skipped: 0, todo: 0 };
}

/** Adds one vitest JSON report (the jest-compatible shape) to the running totals. */
function add(into, report) {
  into.tests.failed += report.numFailedTests;
  into.tests.passed += report.numPassedTests;
  into.tests.skipped += report.numPendingTests;
  into.tests.todo += report.numTodoTests;
  for (const file of report.testResults) {
    if (file.status === 'failed') into.files.failed += 1;
    else if (file.status === 'passed') into.files.passed += 1;
    else into.files.skipped += 1;
  }
}

/** `package file > test: first line of the failure` for each failed test of one report. */
function failuresOf(pkg, report) {
  const lines = [];
  for (const file of report.testResults) {
    const where = file.name.startsWith(ROOT) ? file.name.slice(ROOT.length + 1) : file.name;
    const failed = file.assertionResults.filter((test) => test.status === 'failed');
    // A file that failed to load has no failed test, only its own message.
    if (failed.length === 0 && file.status === 'failed') {
      lines.push(`${pkg} ${where}: ${firstLine(file.message)}`);
    }
    for (const test of failed) {
      lines.push(`${pkg} ${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    }
  }
  return lines;
}

/** The first non-empty line of a failure message, without colour codes, at most 300 chars. */
function firstLine(message) {
  const text = stripVTControlCharacters(message ?? '');
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'no message';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** `3 failed | 140 passed | 2 skipped (145)`, the way vitest words its summary. */
function format(c) {
  const parts = [];
  if (c.failed > 0) parts.push(`${c.failed} failed`);
  parts.push(`${c.passed} passed`);
  if (c.skipped > 0) parts.push(`${c.skipped} skipped`);
  if (c.todo > 0) parts.push(`${c.todo} todo`);
  return `${parts.join(' | ')} (${c.failed + c.passed + c.skipped + c.todo})`;
}

/** The run summary turbo wrote for this invocation (`--summarize`), newest first. */
function latestRunSummary(since) {
  const runs = existsSync(RUNS)
    ? readdirSync(RUNS)
        .filter((name) => name.endsWith('.json'))
        .map((name) => join(RUNS, name))
        .filter((file) => statSync(file).mtimeMs >= since)
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  if (runs.length === 0) {
    console.error('pnpm test: turbo wrote no run summary, so no test was counted');
    process.exit(1);
  }
  return JSON.parse(readFileSync(runs[0], 'utf8'));
}

/** The `test` tasks of a turbo run summary, with where each package lives and how it ended. */
function testTasksOf(summary) {
  return summary.tasks
    .filter((task) => task.task === 'test' && task.command !== '<NONEXISTENT>')
    .map((task) => ({
      package: task.package,
      directory: task.directory,
      cached: task.cache?.status === 'HIT',
      exitCode: task.execution?.exitCode ?? 0,
    }));
}
