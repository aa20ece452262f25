const { readFileSync } = require('node:fs');
const path = require('node:path');

/**
 * Two projects, one run: the specs, and the reliability scenarios (spec/reliability, at CI sizes here;
 * `npm run reliability` runs that project alone at full size). Coverage and its threshold come with
 * `npm run coverage` (and CI's `npm test -- --coverage`): instrumenting lib/ costs a fifth of the run, and
 * `npx jest spec/<file>` runs one file alone without failing the threshold.
 */
const project = {
  testEnvironment: 'node',
  testMatch: ['**/*.spec.ts'],
  // swc only transpiles (tsconfig.json's isolatedModules), in a fraction of ts-jest's time: `npm test` typechecks with tsc first
  transform: { '^.+\\.ts$': ['@swc/jest', JSON.parse(readFileSync(path.join(__dirname, '.swcrc'), 'utf8'))] },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...project,
      displayName: 'spec',
      roots: ['<rootDir>/spec'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/spec/reliability/'],
    },
    { ...project, displayName: 'reliability', roots: ['<rootDir>/spec/reliability'] },
  ],
  // four on two cores: much of the specs' time is waiting on servers, child processes and real delays (2 s of SSE
  // comments, a drain, a keep-alive), which the other workers fill (here 77 s, against 93 s on three and 77 s on five)
  maxWorkers: 4,
  // a global option: inside a project it is ignored (the default 5 s applies)
  testTimeout: 20000,
  globalSetup: '<rootDir>/spec/global-setup.ts',
  globalTeardown: '<rootDir>/spec/global-teardown.ts',
  collectCoverageFrom: ['lib/**/*.ts', '!lib/index.ts', '!lib/gateway/cli.ts'],
  coverageReporters: ['text-summary'],
  coverageThreshold: { global: { lines: 90 } },
};
