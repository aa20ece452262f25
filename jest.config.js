/**
 * Two projects, one run: the specs, and the reliability scenarios (spec/reliability, at CI sizes here;
 * `npm run reliability` runs that project alone at full size). Parallel workers: most specs wait on real servers
 * and child processes more than they compute. Coverage and its threshold come with `npm test` (`jest --coverage`),
 * so `npx jest spec/<file>` runs one file alone without failing the threshold.
 */
const project = {
  testEnvironment: 'node',
  testMatch: ['**/*.spec.ts'],
  // ts-jest only transpiles (tsconfig.json's isolatedModules): `npm test` typechecks with tsc first
  transform: { '^.+\\.ts$': 'ts-jest' },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...project, displayName: 'spec', roots: ['<rootDir>/spec'], testPathIgnorePatterns: ['/node_modules/', '<rootDir>/spec/reliability/'] },
    { ...project, displayName: 'reliability', roots: ['<rootDir>/spec/reliability'] },
  ],
  maxWorkers: 2,
  // a global option: inside a project it is ignored (the default 5 s applies)
  testTimeout: 20000,
  globalSetup: '<rootDir>/spec/global-setup.ts',
  globalTeardown: '<rootDir>/spec/global-teardown.ts',
  collectCoverageFrom: ['lib/**/*.ts', '!lib/index.ts', '!lib/gateway/cli.ts'],
  coverageReporters: ['text-summary'],
  coverageThreshold: { global: { lines: 90 } },
};
